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
	"strings"
	"testing"
)

const mib = 1 << 20

// oneScenario is a report of one scenario with every implementation, in round figures: ours
// misses one target (its p50 is 1.33 times the floor's) and meets the others.
func oneScenario() *Report {
	return &Report{
		Machine: Machine{CPUs: 2},
		Events:  20,
		Scenarios: []*Scenario{{
			Pods: 1000, Foos: 100, Friends: 50, Events: 20, Namespaces: 10, Run: 1, PodListSeconds: 0.25,
			Results: []*Result{{
				Implementation: Ours,
				Latency:        Percentiles{P50: 2, P90: 3, P99: 4, P999: 5, Max: 6}, P99Interval: [2]float64{3.5, 4.5},
				DeletionLatency: Percentiles{P99: 4}, CreationLatency: Percentiles{P99: 3.5}, PodWrite: Percentiles{P99: 1.25},
				EventsCPUSeconds: 0.02, CPUPerEventMillis: 1, StartupCPUSeconds: 0.5,
				StartupToSyncedSeconds: 0.4, StartupToCorrectSeconds: 0.6, StartupSeconds: 2, StartupStatusWrites: 50,
				PeakRSSBytes: 64 * mib, PeakHeapBytes: 8 * mib,
				StatusWrites: 20, Transitions: 20, HappyFlips: 20,
				BurstPods: 100, BurstCreateSeconds: 0.5, BurstDeleteSeconds: 0.75,
				Requests:   map[string]float64{"PATCH": 20},
				BrokenDown: 20,
				StageMediansMillis: map[string]float64{
					StagePodWrite: 0.5, StageDelivery: 0.25, StageQueue: 0.125, StageWrite: 1, StageSeen: 0.125,
				},
				Slowest: []EventBreakdown{{
					Pod: "bench-01/pod-00001", Deletion: true, LatencyMillis: 6,
					Stages: map[string]float64{StagePodWrite: 1, StageDelivery: 0.5, StageQueue: 2, StageWrite: 3, StageSeen: 0.5},
				}},
			}, {
				Implementation: Naive,
				Latency:        Percentiles{P50: 10, P90: 20, P99: 40, P999: 50, Max: 60}, P99Interval: [2]float64{30, 50},
				DeletionLatency: Percentiles{P99: 40}, CreationLatency: Percentiles{P99: 35}, PodWrite: Percentiles{P99: 1.5},
				Missed: 1, EventsCPUSeconds: 4, CPUPerEventMillis: 200, StartupCPUSeconds: 3,
				StartupToCorrectSeconds: 5, StartupSeconds: 8, StartupStatusWrites: 50,
				PeakRSSBytes: 512 * mib, PeakHeapBytes: 256 * mib,
				StatusWrites: 40, StatusWriteConflicts: 2, Transitions: 20, HappyFlips: 20,
				BurstPods: 100, BurstCreateSeconds: 12.5, BurstDeleteSeconds: 150,
				Requests: map[string]float64{"GET": 100, "LIST": 20, "PATCH": 40},
			}, {
				Implementation: Floor,
				Latency:        Percentiles{P50: 1.5, P90: 2.5, P99: 3, P999: 3.5, Max: 4}, P99Interval: [2]float64{2.5, 3.5},
				DeletionLatency: Percentiles{P99: 3}, CreationLatency: Percentiles{P99: 2.5}, PodWrite: Percentiles{P99: 1},
				EventsCPUSeconds: 0.01, CPUPerEventMillis: 0.5, StartupCPUSeconds: 0.25,
				StartupToSyncedSeconds: 0.3, StartupToCorrectSeconds: 0.5, StartupSeconds: 1.5, StartupStatusWrites: 50,
				PeakRSSBytes: 32 * mib, PeakHeapBytes: 4 * mib,
				StatusWrites: 20, Transitions: 20, HappyFlips: 20,
				BurstPods: 100, BurstCreateSeconds: 0.25, BurstDeleteSeconds: 0.5,
				Requests: map[string]float64{"PATCH": 20},
			}},
		}},
	}
}

func TestWriteTablesOfOneScenario(t *testing.T) {
	var out strings.Builder
	oneScenario().WriteTables(&out)
	want := strings.Join([]string{
		"",
		"P=1000 pods, F=100 Foos each (50 naming a pod), E=20 pod events each, interleaved; 10 namespaces, 2 CPUs; run 1",
		"A bare paginated metadata-only list of every pod: 0.250s",
		"                                         ours   naive  floor  ours/naive  ours/floor",
		"                      latency p50 (ms)      2      10  1.500        0.20        1.33",
		"                      latency p90 (ms)      3      20  2.500        0.15        1.20",
		"                      latency p99 (ms)      4      40      3        0.10        1.33",
		"           p99, 95% interval from (ms)  3.500      30  2.500        0.12        1.40",
		"             p99, 95% interval to (ms)  4.500      50  3.500      0.0900        1.29",
		"                    latency p99.9 (ms)      5      50  3.500        0.10        1.43",
		"                      latency max (ms)      6      60      4        0.10        1.50",
		"                 p99 of deletions (ms)      4      40      3        0.10        1.33",
		"                 p99 of creations (ms)  3.500      35  2.500        0.10        1.40",
		"  pod write before the event, p99 (ms)  1.250   1.500      1        0.83        1.25",
		"                         missed events      0       1      0      0.0000           -",
		"                       CPU, events (s)  0.020       4  0.010      0.0050        2.00",
		"                    CPU per event (ms)      1     200  0.500      0.0050        2.00",
		"                      CPU, startup (s)  0.500       3  0.250        0.17        2.00",
		"          startup to caches synced (s)  0.400       0  0.300           -        1.33",
		"        startup to every Foo right (s)  0.600       5  0.500        0.12        1.20",
		"                   startup to idle (s)      2       8  1.500        0.25        1.33",
		"                        peak RSS (MiB)     64     512     32        0.12        2.00",
		"              peak heap after GC (MiB)      8     256      4      0.0312        2.00",
		"                   per 1000 pods (KiB)   8192  262144   4096      0.0312        2.00",
		"                         status writes     20      40     20        0.50        1.00",
		"                    of which conflicts      0       2      0      0.0000           -",
		"               real status transitions     20      20     20        1.00        1.00",
		"                  of which happy flips     20      20     20        1.00        1.00",
		"       burst: created to all happy (s)  0.500    12.5  0.250      0.0400        2.00",
		"     burst: deleted to all unhappy (s)  0.750     150  0.500      0.0050        1.50",
		"                      API GET requests      0     100      0      0.0000           -",
		"                     API LIST requests      0      20      0      0.0000           -",
		"                    API PATCH requests     20      40     20        0.50        1.00",
		"Where the time goes, ours (20 events matched with its log; ms):",
		"                                  latency  pod write, before the event" +
			"  pod watch delivery  work queue  reconcile + status PATCH  Foo watch to the benchmark",
		"            median of each stage" +
			"                                 0.500               0.250       0.125                         1                       0.125",
		"  deletion of bench-01/pod-00001        6" +
			"                            1               0.500           2                         3                       0.500",
		"",
		"Targets for ours at P=1000, F=100, over 1 run(s) (reported, not enforced):",
		"  p99 latency <= 1.5x floor's                    met    median ratio 1.33 (4 vs 3)",
		"  p50 latency <= 1.2x floor's                    MISSED median ratio 1.33 (2 vs 1.500)",
		"  CPU over the events <= 1% of naive's           met    median ratio 0.005 (0.020 vs 4)",
		"  peak heap <= 20% of naive's                    met    median ratio 0.0312 (8388608 vs 268435456)",
		"  status writes == real transitions (run 1)      met    20 writes (0 conflicts), 20 transitions",
		"  startup to caches synced <= 2x a bare pod list (run 1) met    " +
			"caches synced after 0.40s, the list took 0.25s: 1.60x; every Foo right after 0.60s (50 status writes)",
		"",
	}, "\n")
	if out.String() != want {
		t.Errorf("the tables read\n%s\nwant\n%s", out.String(), want)
	}
}

// TestTargetsGoByTheMedianRunAndCompareSizes checks the verdicts at the largest size, over
// two runs, and across three sizes of ours' first runs.
func TestTargetsGoByTheMedianRunAndCompareSizes(t *testing.T) {
	ours := func(p50, p99, cpuPerEvent float64, heapMiB int64, writes, conflicts int) *Result {
		return &Result{
			Implementation: Ours, Latency: Percentiles{P50: p50, P99: p99}, CPUPerEventMillis: cpuPerEvent,
			PeakHeapBytes: heapMiB * mib, StatusWrites: writes, StatusWriteConflicts: conflicts, Transitions: 20,
		}
	}
	floor := &Result{Implementation: Floor, Latency: Percentiles{P50: 2, P99: 4}}
	report := &Report{Scenarios: []*Scenario{
		{Pods: 1000, Foos: 100, Run: 1, Results: []*Result{ours(2, 3, 1, 10, 20, 0)}},
		{Pods: 2000, Foos: 100, Run: 1, Results: []*Result{ours(2.2, 3, 1.1, 14, 20, 0)}},
		{Pods: 4000, Foos: 100, Run: 1, Results: []*Result{ours(2.5, 6, 1.1, 24, 21, 1), floor}},
		{Pods: 4000, Foos: 100, Run: 2, Results: []*Result{ours(2, 3, 1, 24, 20, 0), floor}},
	}}
	var out strings.Builder
	printTargets(&out, report)
	want := strings.Join([]string{
		"",
		"Targets for ours at P=4000, F=100, over 2 run(s) (reported, not enforced):",
		"  p99 latency <= 1.5x floor's                    met    median ratio 0.75 (6 vs 4; 3 vs 4)",
		"  p50 latency <= 1.2x floor's                    met    median ratio 1 (2.500 vs 2; 2 vs 2)",
		"  status writes == real transitions (run 1)      MISSED 21 writes (1 conflicts), 20 transitions",
		"  status writes == real transitions (run 2)      met    20 writes (0 conflicts), 20 transitions",
		"  CPU per event flat P=1000..4000 (<= 1.2x)      met    1.10x",
		"  p50 latency flat P=1000..4000 (<= 1.2x)        MISSED 1.25x",
		"  heap per 1000 more pods flat (<= 1.2x)         MISSED 1.25x (P=1000..2000: 4096 KiB; P=2000..4000: 5120 KiB)",
		"",
	}, "\n")
	if out.String() != want {
		t.Errorf("the targets read\n%s\nwant\n%s", out.String(), want)
	}
}

func TestFormatValue(t *testing.T) {
	for value, want := range map[float64]string{
		0: "0", 3: "3", 262144: "262144", 1e9: "1000000000", 123.4: "123", 12.34: "12.3", 1.23456: "1.235", 0.5: "0.500",
	} {
		if got := formatValue(value); got != want {
			t.Errorf("formatValue(%v) = %q, want %q", value, got, want)
		}
	}
}
