/*
Copyright 2026 The foo-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// This file turns measurements into percentiles and figures.

package main

import (
	"fmt"
	"slices"
	"time"
)

// summarize returns latencies in milliseconds, sorted, and their percentiles.
func summarize(latencies []time.Duration) ([]float64, Percentiles) {
	slices.Sort(latencies)
	millis := make([]float64, len(latencies))
	for i, latency := range latencies {
		millis[i] = float64(latency) / float64(time.Millisecond)
	}
	return millis, Percentiles{
		P50:  percentile(millis, 0.50),
		P90:  percentile(millis, 0.90),
		P99:  percentile(millis, 0.99),
		P999: percentile(millis, 0.999),
		Max:  percentile(millis, 1),
	}
}

// percentile returns the nearest-rank percentile q of sorted values.
func percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[max(0, min(rank, len(sorted)-1))]
}

func since(start time.Time) time.Duration { return time.Since(start).Round(100 * time.Millisecond) }

func ms(millis float64) string { return fmt.Sprintf("%.2fms", millis) }

func mib(bytes int64) string { return fmt.Sprintf("%.1f", float64(bytes)/(1<<20)) }
