//go:build tools

// Package tools pins the generators and manifest tools used by the Makefile.
package tools

import (
	_ "github.com/elastic/crd-ref-docs"
	_ "github.com/google/go-containerregistry/cmd/crane"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
	_ "sigs.k8s.io/kustomize/kustomize/v5"
)
