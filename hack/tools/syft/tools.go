//go:build tools

// Package tools pins anchore's syft, which lists what is inside each published image (Go
// modules read from its binaries, files of its base layers) as an SBOM.
package tools

import (
	_ "github.com/anchore/syft/cmd/syft"
)
