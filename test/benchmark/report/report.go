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
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// The implementations the benchmark compares, by the names its flags, its tables and its
// JSON use: the ratios and the targets set ours against the two references.
const (
	Ours  = "ours"
	Naive = "naive"
	Floor = "floor"
)

// Report is everything one run of the benchmark measured; it is written as the JSON file.
type Report struct {
	Started time.Time `json:"started"`
	Machine Machine   `json:"machine"`
	Events  int       `json:"events"`
	// FoosPerPod, if set, sized F from P instead of a list of Fs.
	FoosPerPod float64     `json:"foosPerPod,omitempty"`
	Scenarios  []*Scenario `json:"scenarios"`
}

// Machine describes where the benchmark ran.
type Machine struct {
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpuModel"`
	GoVersion string `json:"goVersion"`
	OS        string `json:"os"`
}

// Scenario is one cluster size and the results of each implementation on it.
type Scenario struct {
	Pods       int `json:"pods"`
	Foos       int `json:"foos"`
	Friends    int `json:"friends"`
	Events     int `json:"events"`
	Namespaces int `json:"namespaces"`
	// Run numbers the repetitions of one size, from 1; each has a fresh control plane.
	Run int `json:"run"`
	// InCluster: ours ran as the operator's pod on a real node, its CPU and peak memory
	// read from its container's cgroup (peak memory includes page cache).
	InCluster bool `json:"inCluster,omitempty"`
	// PodListSeconds is the fastest of three paginated metadata-only lists of every pod by a
	// bare client: no controller can know every pod sooner.
	PodListSeconds float64   `json:"podListSeconds"`
	Results        []*Result `json:"results"`
}

// Result is what one implementation did in one scenario. Startup figures run from the
// process's start until it is ready and idle; the others cover the pod events only.
// StartupToSyncedSeconds runs until the process knows every pod and Foo, before its first
// status write: ours logs "Starting workers" once its caches have synced, the floor "Listed
// pods and Foos"; the naive design logs neither (0).
type Result struct {
	Implementation  string      `json:"implementation"`
	Latency         Percentiles `json:"latencyMillis"`
	P99Interval     [2]float64  `json:"p99IntervalMillis"`
	DeletionLatency Percentiles `json:"deletionLatencyMillis"`
	CreationLatency Percentiles `json:"creationLatencyMillis"`
	LatenciesMillis []float64   `json:"latenciesMillis"`
	// PodWrite is how long the apiserver took to answer the benchmark's pod writes, before
	// each event, and so not part of its latency.
	PodWrite                Percentiles        `json:"podWriteMillis"`
	Missed                  int                `json:"missedEvents"`
	EventsSeconds           float64            `json:"eventsSeconds"`
	EventsCPUSeconds        float64            `json:"eventsCPUSeconds"`
	CPUPerEventMillis       float64            `json:"cpuPerEventMillis"`
	StartupSeconds          float64            `json:"startupSeconds"`
	StartupToCorrectSeconds float64            `json:"startupToCorrectSeconds"`
	StartupToSyncedSeconds  float64            `json:"startupToSyncedSeconds"`
	StartupCPUSeconds       float64            `json:"startupCPUSeconds"`
	PeakRSSBytes            int64              `json:"peakRSSBytes"`
	HeapAfterSyncBytes      int64              `json:"heapAfterSyncBytes"`
	HeapAfterEventsBytes    int64              `json:"heapAfterEventsBytes"`
	PeakHeapBytes           int64              `json:"peakHeapBytes"`
	StatusWrites            int                `json:"statusWrites"`
	StatusWriteConflicts    int                `json:"statusWriteConflicts"`
	Transitions             int                `json:"statusTransitions"`
	HappyFlips              int                `json:"happyFlips"`
	StartupStatusWrites     int                `json:"startupStatusWrites"`
	Requests                map[string]float64 `json:"requestsByVerb"`
	StartupRequests         map[string]float64 `json:"startupRequestsByVerb"`
	// BrokenDown events could be matched with the implementation's log; Slowest are the
	// slowest 1% of them, split into stages.
	BrokenDown         int                `json:"brokenDownEvents"`
	StageMediansMillis map[string]float64 `json:"stageMediansMillis"`
	Slowest            []EventBreakdown   `json:"slowest"`
	// The bursts: BurstPods friend pods created at once, then deleted at once, each until
	// every Foo naming one of them showed it.
	BurstPods          int     `json:"burstPods"`
	BurstCreateSeconds float64 `json:"burstCreateSeconds"`
	BurstDeleteSeconds float64 `json:"burstDeleteSeconds"`
}

// Percentiles of durations in milliseconds, such as the latency from a pod event (its write
// answered) to the Foo status change.
type Percentiles struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

func (s *Scenario) result(name string) *Result {
	for _, r := range s.Results {
		if r.Implementation == name {
			return r
		}
	}
	return nil
}

// row is one line of the table: a figure, and how to read it from a result.
type row struct {
	label string
	value func(*Result) float64
	unit  string
}

func tableRows(s *Scenario) []row {
	perThousandPods := float64(s.Pods) / 1000
	figures := []row{
		{"latency p50", func(r *Result) float64 { return r.Latency.P50 }, "ms"},
		{"latency p90", func(r *Result) float64 { return r.Latency.P90 }, "ms"},
		{"latency p99", func(r *Result) float64 { return r.Latency.P99 }, "ms"},
		{"  p99, 95% interval from", func(r *Result) float64 { return r.P99Interval[0] }, "ms"},
		{"  p99, 95% interval to", func(r *Result) float64 { return r.P99Interval[1] }, "ms"},
		{"latency p99.9", func(r *Result) float64 { return r.Latency.P999 }, "ms"},
		{"latency max", func(r *Result) float64 { return r.Latency.Max }, "ms"},
		{"  p99 of deletions", func(r *Result) float64 { return r.DeletionLatency.P99 }, "ms"},
		{"  p99 of creations", func(r *Result) float64 { return r.CreationLatency.P99 }, "ms"},
		{"pod write before the event, p99", func(r *Result) float64 { return r.PodWrite.P99 }, "ms"},
		{"missed events", func(r *Result) float64 { return float64(r.Missed) }, ""},
		{"CPU, events", func(r *Result) float64 { return r.EventsCPUSeconds }, "s"},
		{"CPU per event", func(r *Result) float64 { return r.CPUPerEventMillis }, "ms"},
		{"CPU, startup", func(r *Result) float64 { return r.StartupCPUSeconds }, "s"},
		{"startup to caches synced", func(r *Result) float64 { return r.StartupToSyncedSeconds }, "s"},
		{"startup to every Foo right", func(r *Result) float64 { return r.StartupToCorrectSeconds }, "s"},
		{"startup to idle", func(r *Result) float64 { return r.StartupSeconds }, "s"},
		{"peak RSS", func(r *Result) float64 { return float64(r.PeakRSSBytes) / (1 << 20) }, "MiB"},
		{"peak heap after GC", func(r *Result) float64 { return float64(r.PeakHeapBytes) / (1 << 20) }, "MiB"},
		{"  per 1000 pods", func(r *Result) float64 { return float64(r.PeakHeapBytes) / 1024 / perThousandPods }, "KiB"},
		{"status writes", func(r *Result) float64 { return float64(r.StatusWrites) }, ""},
		{"  of which conflicts", func(r *Result) float64 { return float64(r.StatusWriteConflicts) }, ""},
		{"real status transitions", func(r *Result) float64 { return float64(r.Transitions) }, ""},
		{"  of which happy flips", func(r *Result) float64 { return float64(r.HappyFlips) }, ""},
		{"burst: created to all happy", func(r *Result) float64 { return r.BurstCreateSeconds }, "s"},
		{"burst: deleted to all unhappy", func(r *Result) float64 { return r.BurstDeleteSeconds }, "s"},
	}
	verbs := map[string]bool{}
	for _, r := range s.Results {
		for verb := range r.Requests {
			verbs[verb] = true
		}
	}
	requests := make([]row, 0, len(verbs))
	for _, verb := range slices.Sorted(maps.Keys(verbs)) {
		requests = append(requests, row{"API " + verb + " requests", func(r *Result) float64 { return r.Requests[verb] }, ""})
	}
	return slices.Concat(figures, requests)
}

// WriteTables writes one table per scenario and run: each implementation's figures, and the
// ratios of ours to the references; then the breakdown of the slowest events; and last how
// ours compares with the targets.
func (r *Report) WriteTables(out io.Writer) {
	for _, s := range r.Scenarios {
		fmt.Fprintf(out, "\nP=%d pods, F=%d Foos each (%d naming a pod), E=%d pod events each, interleaved; %d namespaces, %d CPUs; run %d\n",
			s.Pods, s.Foos, s.Friends, s.Events, s.Namespaces, r.Machine.CPUs, s.Run)
		if s.InCluster {
			fmt.Fprintln(out, "Ours ran as the operator's pod on a real node (CPU and peak memory from its cgroup).")
		}
		fmt.Fprintf(out, "A bare paginated metadata-only list of every pod: %.3fs\n", s.PodListSeconds)
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		header := "\t"
		for _, result := range s.Results {
			header += result.Implementation + "\t"
		}
		header += "ours/naive\tours/floor\t"
		fmt.Fprintln(tw, header)
		us, nv, fl := s.result(Ours), s.result(Naive), s.result(Floor)
		for _, row := range tableRows(s) {
			line := row.label
			if row.unit != "" {
				line += " (" + row.unit + ")"
			}
			line += "\t"
			for _, result := range s.Results {
				line += formatValue(row.value(result)) + "\t"
			}
			line += ratio(us, nv, row.value) + "\t" + ratio(us, fl, row.value) + "\t"
			fmt.Fprintln(tw, line)
		}
		_ = tw.Flush()
		printBreakdown(out, s)
	}
	printTargets(out, r)
}

// printBreakdown writes, for each implementation that logs its moments, the median of each
// stage over all its events, then its slowest 1% of events stage by stage.
func printBreakdown(out io.Writer, s *Scenario) {
	for _, r := range s.Results {
		if len(r.Slowest) == 0 {
			continue
		}
		fmt.Fprintf(out, "Where the time goes, %s (%d events matched with its log; ms):\n", r.Implementation, r.BrokenDown)
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		header := "\tlatency\t"
		for _, stage := range stages {
			header += stage + "\t"
		}
		fmt.Fprintln(tw, header)
		line := "median of each stage\t\t"
		for _, stage := range stages {
			line += formatValue(r.StageMediansMillis[stage]) + "\t"
		}
		fmt.Fprintln(tw, line)
		for _, event := range r.Slowest {
			kind := "creation"
			if event.Deletion {
				kind = "deletion"
			}
			line := kind + " of " + event.Pod + "\t" + formatValue(event.LatencyMillis) + "\t"
			for _, stage := range stages {
				line += formatValue(event.Stages[stage]) + "\t"
			}
			fmt.Fprintln(tw, line)
		}
		_ = tw.Flush()
	}
}

func formatValue(v float64) string {
	switch {
	case v == float64(int64(v)) && v < 1e9:
		return fmt.Sprintf("%d", int64(v))
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

func ratio(a, b *Result, value func(*Result) float64) string {
	if a == nil || b == nil || value(b) == 0 {
		return "-"
	}
	r := value(a) / value(b)
	if r < 0.1 {
		return fmt.Sprintf("%.4f", r)
	}
	return fmt.Sprintf("%.2f", r)
}

// printTargets compares ours with the targets: at the largest size, over all its
// runs (the verdict goes by the median run), then across sizes. It reports; it never fails
// the run.
func printTargets(out io.Writer, report *Report) {
	if len(report.Scenarios) == 0 {
		return
	}
	largest := report.Scenarios[0]
	for _, s := range report.Scenarios {
		if s.Pods > largest.Pods || (s.Pods == largest.Pods && s.Foos > largest.Foos) {
			largest = s
		}
	}
	var runs []*Scenario
	for _, s := range report.Scenarios {
		if s.Pods == largest.Pods && s.Foos == largest.Foos && s.result(Ours) != nil {
			runs = append(runs, s)
		}
	}
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(out, "\nTargets for ours at P=%d, F=%d, over %d run(s) (reported, not enforced):\n", largest.Pods, largest.Foos, len(runs))
	printTargetsOfRuns(out, runs)
	printScaling(out, report, largest, runs[0])
}

// printCheck prints one target's verdict.
func printCheck(out io.Writer, name string, met bool, detail string) {
	verdict := "met"
	if !met {
		verdict = "MISSED"
	}
	fmt.Fprintf(out, "  %-46s %-6s %s\n", name, verdict, detail)
}

// printTargetsOfRuns compares ours with the targets in the runs of one size.
func printTargetsOfRuns(out io.Writer, runs []*Scenario) {
	check := func(name string, met bool, detail string) { printCheck(out, name, met, detail) }
	// acrossRuns gives each run's ratio of ours to a reference, and their median.
	acrossRuns := func(reference string, value func(*Result) float64) (float64, string, bool) {
		var ratios []float64
		detail := ""
		for _, s := range runs {
			us, ref := s.result(Ours), s.result(reference)
			if ref == nil || value(ref) == 0 {
				return 0, "", false
			}
			ratios = append(ratios, value(us)/value(ref))
			detail += fmt.Sprintf("%s vs %s; ", formatValue(value(us)), formatValue(value(ref)))
		}
		sorted := slices.Sorted(slices.Values(ratios))
		return sorted[(len(sorted)-1)/2], detail, true
	}
	for _, t := range []struct {
		name      string
		reference string
		limit     float64
		value     func(*Result) float64
	}{
		{"p99 latency <= 1.5x floor's", Floor, 1.5, func(r *Result) float64 { return r.Latency.P99 }},
		{"p50 latency <= 1.2x floor's", Floor, 1.2, func(r *Result) float64 { return r.Latency.P50 }},
		{"CPU over the events <= 1% of naive's", Naive, 0.01, func(r *Result) float64 { return r.EventsCPUSeconds }},
		{"peak heap <= 20% of naive's", Naive, 0.20, func(r *Result) float64 { return float64(r.PeakHeapBytes) }},
	} {
		if median, detail, ok := acrossRuns(t.reference, t.value); ok {
			check(t.name, median <= t.limit, fmt.Sprintf("median ratio %.3g (%s)", median, strings.TrimSuffix(detail, "; ")))
		}
	}
	for _, s := range runs {
		us := s.result(Ours)
		check(fmt.Sprintf("status writes == real transitions (run %d)", s.Run), us.StatusWrites == us.Transitions,
			fmt.Sprintf("%d writes (%d conflicts), %d transitions", us.StatusWrites, us.StatusWriteConflicts, us.Transitions))
		// The bare list writes nothing, while every Foo here starts wrong and needs a status
		// write: the list compares with the time until the manager knows every pod, and the
		// writes after it are shown beside it.
		if s.PodListSeconds > 0 && us.StartupToSyncedSeconds > 0 {
			r := us.StartupToSyncedSeconds / s.PodListSeconds
			check(fmt.Sprintf("startup to caches synced <= 2x a bare pod list (run %d)", s.Run), r <= 2,
				fmt.Sprintf("caches synced after %.2fs, the list took %.2fs: %.2fx; every Foo right after %.2fs (%d status writes)",
					us.StartupToSyncedSeconds, s.PodListSeconds, r, us.StartupToCorrectSeconds, us.StartupStatusWrites))
		}
	}

}

// printScaling compares ours across sizes, from the smallest number of pods to the largest
// (first runs; biggest is the first run of largest).
func printScaling(out io.Writer, report *Report, largest, biggest *Scenario) {
	check := func(name string, met bool, detail string) { printCheck(out, name, met, detail) }
	var smallest *Scenario
	for _, s := range report.Scenarios {
		if s.Run == 1 && s.result(Ours) != nil && (smallest == nil || s.Pods < smallest.Pods) {
			smallest = s
		}
	}
	if smallest == nil || smallest.Pods == largest.Pods {
		return
	}
	small, big := smallest.result(Ours), biggest.result(Ours)
	flat := func(name string, value func(*Result) float64) {
		a, b := value(small), value(big)
		if a == 0 {
			return
		}
		check(fmt.Sprintf("%s flat P=%d..%d (<= 1.2x)", name, smallest.Pods, largest.Pods), b/a <= 1.2, fmt.Sprintf("%.2fx", b/a))
	}
	flat("CPU per event", func(r *Result) float64 { return r.CPUPerEventMillis })
	flat("p50 latency", func(r *Result) float64 { return r.Latency.P50 })
	// The heap that each 1000 more pods (and their Foos) add, from one size to the next.
	var sizes []*Scenario
	for _, s := range report.Scenarios {
		if s.Run == 1 && s.result(Ours) != nil {
			sizes = append(sizes, s)
		}
	}
	slices.SortFunc(sizes, func(a, b *Scenario) int { return a.Pods - b.Pods })
	var slopes []float64
	detail := ""
	for i := 1; i < len(sizes); i++ {
		added := float64(sizes[i].result(Ours).PeakHeapBytes - sizes[i-1].result(Ours).PeakHeapBytes)
		pods := float64(sizes[i].Pods - sizes[i-1].Pods)
		if pods <= 0 {
			continue
		}
		slopes = append(slopes, added/1024/(pods/1000))
		detail += fmt.Sprintf("P=%d..%d: %.0f KiB; ", sizes[i-1].Pods, sizes[i].Pods, slopes[len(slopes)-1])
	}
	if len(slopes) >= 2 && slices.Min(slopes) > 0 {
		r := slices.Max(slopes) / slices.Min(slopes)
		check("heap per 1000 more pods flat (<= 1.2x)", r <= 1.2, fmt.Sprintf("%.2fx (%s)", r, strings.TrimSuffix(detail, "; ")))
	} else if detail != "" {
		fmt.Fprintf(out, "  heap per 1000 more pods: %s\n", strings.TrimSuffix(detail, "; "))
	}
}

// SaveJSON writes the report to path as indented JSON.
func (r *Report) SaveJSON(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
