//go:build tools

// Package tools pins the container runtime of the local cluster's node: containerd, its
// client ctr, and the runc shim it starts containers through.
package tools

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
)
