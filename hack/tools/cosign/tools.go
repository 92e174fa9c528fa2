//go:build tools

// Package tools pins sigstore's cosign, which signs the published images and attaches and
// verifies their SBOM and provenance attestations.
package tools

import (
	_ "github.com/sigstore/cosign/v3/cmd/cosign"
)
