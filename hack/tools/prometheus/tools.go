//go:build tools

// Package tools pins Prometheus's promtool, which unit-tests the operator's alerting rules
// (`promtool test rules`) as Prometheus itself evaluates them, and Prometheus's server, which
// the node suite runs to scrape the operator and fire its alerts.
package tools

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
