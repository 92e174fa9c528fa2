//go:build tools

// Package tools pins the operator-sdk CLI, the scorecard-test image's binary, which runs its
// scorecard tests in pods, and the Helm CLI with which the end-to-end tests render OLM's
// release manifests from its chart, as OLM's release does. Helm is the version operator-sdk
// itself links: its packages are already compiled for operator-sdk, so it costs a link.
//
// It also pins OLM v1, catalogd and operator-controller, which the end-to-end tests install.
// v1.5.1 is on the Kubernetes libraries, controller-runtime and Helm that operator-sdk links,
// so adding it changed no version here, and most of its packages are compiled already.
// (Later releases need pkg.package-operator.run/boxcutter, which the module proxy refuses.)
package tools

import (
	_ "github.com/operator-framework/operator-controller/cmd/catalogd"
	_ "github.com/operator-framework/operator-controller/cmd/operator-controller"
	_ "github.com/operator-framework/operator-sdk/cmd/operator-sdk"
	_ "github.com/operator-framework/operator-sdk/images/scorecard-test"
	_ "helm.sh/helm/v3/cmd/helm"
)
