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

package report

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestPercentileIsTheNearestRank(t *testing.T) {
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		q, want float64
	}{{0, 1}, {0.25, 3}, {0.5, 5}, {0.9, 9}, {0.91, 10}, {0.99, 10}, {1, 10}} {
		if got := percentile(sorted, tc.q); got != tc.want {
			t.Errorf("percentile(1..10, %v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if got := percentile(nil, 0.5); got != 0 {
		t.Errorf("percentile of no values = %v, want 0", got)
	}
}

func TestSummarizeLatenciesSplitsDeletionsCreationsAndPodWrites(t *testing.T) {
	at := func(millis int) time.Time { return time.Unix(100, int64(millis)*int64(time.Millisecond)) }
	event := func(deletion bool, sent, answered, seen int) Event {
		return Event{
			Pod: types.NamespacedName{Namespace: "bench-00", Name: "pod-00000"}, Foo: types.NamespacedName{Namespace: "bench-00", Name: "foo-00000"},
			Deletion: deletion, Sent: at(sent), Answered: at(answered), Seen: at(seen),
		}
	}
	// Latencies (from the answer to the Foo seen) of 8, 2, 4 and 1 ms; pod writes of 1, 3, 2
	// and 5 ms.
	events := []Event{event(true, 0, 1, 9), event(false, 10, 13, 15), event(true, 20, 22, 26), event(false, 30, 35, 36)}
	var result Result
	result.SummarizeLatencies(events)

	if want := []float64{1, 2, 4, 8}; !slices.Equal(result.LatenciesMillis, want) {
		t.Errorf("latencies %v, want %v: every event's, sorted, in milliseconds", result.LatenciesMillis, want)
	}
	for _, tc := range []struct {
		name      string
		got, want Percentiles
	}{
		{"latency", result.Latency, Percentiles{P50: 2, P90: 8, P99: 8, P999: 8, Max: 8}},
		{"deletion latency", result.DeletionLatency, Percentiles{P50: 4, P90: 8, P99: 8, P999: 8, Max: 8}},
		{"creation latency", result.CreationLatency, Percentiles{P50: 1, P90: 2, P99: 2, P999: 2, Max: 2}},
		{"pod write", result.PodWrite, Percentiles{P50: 2, P90: 5, P99: 5, P999: 5, Max: 5}},
	} {
		if tc.got != tc.want {
			t.Errorf("%s %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
	// Of 2000 resamples of 4 latencies, about 3 in 1000 draw only the smallest and 6 in 100
	// nothing above the second smallest: the interval runs from the second to the largest.
	if want := [2]float64{2, 8}; result.P99Interval != want {
		t.Errorf("p99 interval %v, want %v", result.P99Interval, want)
	}
}

func TestBootstrapIntervalHoldsThePercentile(t *testing.T) {
	sorted := make([]float64, 1000)
	for i := range sorted {
		sorted[i] = float64(i + 1)
	}
	interval := bootstrapInterval(sorted, 0.99)
	if p99 := percentile(sorted, 0.99); interval[0] > p99 || interval[1] < p99 || interval[0] >= interval[1] {
		t.Errorf("interval %v does not hold the p99 %v", interval, p99)
	}
	if interval := bootstrapInterval(nil, 0.99); interval != [2]float64{} {
		t.Errorf("interval of no values %v, want none", interval)
	}
}
