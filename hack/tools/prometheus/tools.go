//go:build tools

// Package tools pins Prometheus's promtool, which unit-tests the operator's alerting rules
// (`promtool test rules`) as Prometheus itself evaluates them.
package tools

import _ "github.com/prometheus/prometheus/cmd/promtool"
