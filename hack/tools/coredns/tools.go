//go:build tools

// Package tools pins CoreDNS, the local cluster's DNS, run as a pod from an image built here.
package tools

import _ "github.com/coredns/coredns"
