//go:build tools

// Package tools pins the container registry that the image tests push to and pull from:
// distribution's registry, the one most private registries run.
package tools

import _ "github.com/distribution/distribution/v3/cmd/registry"
