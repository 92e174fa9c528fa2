//go:build tools

// Package tools records the Helm this module pins, so that `go mod tidy` keeps it.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
