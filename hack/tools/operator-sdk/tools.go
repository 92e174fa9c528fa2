//go:build tools

// Package tools pins the operator-sdk CLI.
package tools

import _ "github.com/operator-framework/operator-sdk/cmd/operator-sdk"
