//go:build tools

// Package tools records the kubebuilder this module pins, so that `go mod tidy` keeps it.
package tools

import _ "sigs.k8s.io/kubebuilder/v4"
