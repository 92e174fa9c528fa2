//go:build tools

// Package tools pins kubectl for the demo, for machines that have none.
package tools

import _ "k8s.io/kubernetes/cmd/kubectl"
