//go:build tools

// Package tools pins opm, and grpc_health_probe, which the opm base image ships beside it
// for the readiness probes of OLM's catalog pods.
package tools

import (
	_ "github.com/grpc-ecosystem/grpc-health-probe"
	_ "github.com/operator-framework/operator-registry/cmd/opm"
)
