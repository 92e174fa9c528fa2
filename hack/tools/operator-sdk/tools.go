//go:build tools

// Package tools pins the operator-sdk CLI, the scorecard-test image's binary, which runs its
// scorecard tests in pods, and the Helm CLI with which the end-to-end tests render OLM's
// release manifests from its chart, as OLM's release does. Helm is the version operator-sdk
// itself links: its packages are already compiled for operator-sdk, so it costs a link.
package tools

import (
	_ "github.com/operator-framework/operator-sdk/cmd/operator-sdk"
	_ "github.com/operator-framework/operator-sdk/images/scorecard-test"
	_ "helm.sh/helm/v3/cmd/helm"
)
