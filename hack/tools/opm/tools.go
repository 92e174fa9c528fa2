//go:build tools

// Package tools pins opm.
package tools

import _ "github.com/operator-framework/operator-registry/cmd/opm"
