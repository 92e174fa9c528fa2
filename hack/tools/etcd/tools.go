//go:build tools

// Package tools pins etcd for the tests' control plane.
package tools

import _ "go.etcd.io/etcd/server/v3"
