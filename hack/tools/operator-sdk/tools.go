//go:build tools

// Package tools pins the operator-sdk CLI, and the scorecard-test image's binary, which runs
// its scorecard tests in pods.
package tools

import (
	_ "github.com/operator-framework/operator-sdk/cmd/operator-sdk"
	_ "github.com/operator-framework/operator-sdk/images/scorecard-test"
)
