//go:build tools

// Package tools pins Helm, with which the end-to-end tests render OLM's release manifests
// from its chart, as OLM's release does.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
