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

package report

import (
	"math/rand/v2"
	"slices"
	"time"
)

// SummarizeLatencies fills the result's latency figures from the implementation's events:
// every latency, their percentiles and the 95% interval of their p99, the percentiles of
// deletions and of creations apart, and those of the benchmark's pod writes before them.
func (r *Result) SummarizeLatencies(events []Event) {
	latencies := make([]time.Duration, 0, len(events))
	podWrites := make([]time.Duration, 0, len(events))
	var deletions, creations []time.Duration
	for _, event := range events {
		// The pod event happened when its write was stored, which the apiserver's answer
		// tells; how long the write itself took is the apiserver's, recorded apart.
		latency := event.Seen.Sub(event.Answered)
		latencies = append(latencies, latency)
		podWrites = append(podWrites, event.Answered.Sub(event.Sent))
		if event.Deletion {
			deletions = append(deletions, latency)
		} else {
			creations = append(creations, latency)
		}
	}
	r.LatenciesMillis, r.Latency = summarize(latencies)
	r.P99Interval = bootstrapInterval(r.LatenciesMillis, 0.99)
	_, r.DeletionLatency = summarize(deletions)
	_, r.CreationLatency = summarize(creations)
	_, r.PodWrite = summarize(podWrites)
}

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

// bootstrapInterval returns a 95% interval of percentile q of sorted, from 2000 resamples
// with a fixed seed: how far the figure could move with another draw of as many events.
func bootstrapInterval(sorted []float64, q float64) [2]float64 {
	if len(sorted) == 0 {
		return [2]float64{}
	}
	random := rand.New(rand.NewPCG(1, 2))
	estimates := make([]float64, 2000)
	sample := make([]float64, len(sorted))
	for i := range estimates {
		for j := range sample {
			sample[j] = sorted[random.IntN(len(sorted))]
		}
		slices.Sort(sample)
		estimates[i] = percentile(sample, q)
	}
	slices.Sort(estimates)
	return [2]float64{percentile(estimates, 0.025), percentile(estimates, 0.975)}
}
