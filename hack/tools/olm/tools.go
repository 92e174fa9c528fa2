//go:build tools

// Package tools pins OLM: its olm, catalog and package-server operators and the cpb and
// copy-content utilities its bundle unpack Jobs and registry pods run, which make up the
// OLM image the end-to-end tests install. It pins opm, of the operator-registry OLM is built
// on, and grpc_health_probe, which the opm base image ships beside it for the readiness
// probes of OLM's catalog pods.
package tools

import (
	_ "github.com/grpc-ecosystem/grpc-health-probe"
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/catalog"
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/copy-content"
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/olm"
	_ "github.com/operator-framework/operator-lifecycle-manager/cmd/package-server"
	_ "github.com/operator-framework/operator-lifecycle-manager/util/cpb"
	_ "github.com/operator-framework/operator-registry/cmd/opm"
)
