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

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is everything one run of the benchmark measured; it is written as the JSON file.
type Report struct {
	Started   time.Time   `json:"started"`
	Machine   Machine     `json:"machine"`
	Events    int         `json:"events"`
	Scenarios []*Scenario `json:"scenarios"`
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
	Pods       int       `json:"pods"`
	Foos       int       `json:"foos"`
	Friends    int       `json:"friends"`
	Events     int       `json:"events"`
	Namespaces int       `json:"namespaces"`
	Results    []*Result `json:"results"`
}

// Result is what one implementation did in one scenario. Startup figures run from the
// process's start until it is ready and idle; the others cover the pod events only.
type Result struct {
	Implementation       string             `json:"implementation"`
	Latency              Percentiles        `json:"latencyMillis"`
	DeletionLatency      Percentiles        `json:"deletionLatencyMillis"`
	CreationLatency      Percentiles        `json:"creationLatencyMillis"`
	LatenciesMillis      []float64          `json:"latenciesMillis"`
	Missed               int                `json:"missedEvents"`
	EventsSeconds        float64            `json:"eventsSeconds"`
	EventsCPUSeconds     float64            `json:"eventsCPUSeconds"`
	CPUPerEventMillis    float64            `json:"cpuPerEventMillis"`
	StartupSeconds       float64            `json:"startupSeconds"`
	StartupCPUSeconds    float64            `json:"startupCPUSeconds"`
	PeakRSSBytes         int64              `json:"peakRSSBytes"`
	HeapAfterSyncBytes   int64              `json:"heapAfterSyncBytes"`
	HeapAfterEventsBytes int64              `json:"heapAfterEventsBytes"`
	PeakHeapBytes        int64              `json:"peakHeapBytes"`
	StatusWrites         int                `json:"statusWrites"`
	StatusWriteConflicts int                `json:"statusWriteConflicts"`
	Transitions          int                `json:"statusTransitions"`
	HappyFlips           int                `json:"happyFlips"`
	StartupStatusWrites  int                `json:"startupStatusWrites"`
	Requests             map[string]float64 `json:"requestsByVerb"`
	StartupRequests      map[string]float64 `json:"startupRequestsByVerb"`
}

// Percentiles of the latency from a pod event to the Foo status change, in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func newReport(opts options) *Report {
	return &Report{
		Started: time.Now().UTC().Truncate(time.Second),
		Events:  opts.events,
		Machine: Machine{CPUs: runtime.NumCPU(), CPUModel: cpuModel(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH},
	}
}

func cpuModel() string {
	cpuinfo, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(cpuinfo), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return ""
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
	rows := []row{
		{"latency p50", func(r *Result) float64 { return r.Latency.P50 }, "ms"},
		{"latency p90", func(r *Result) float64 { return r.Latency.P90 }, "ms"},
		{"latency p99", func(r *Result) float64 { return r.Latency.P99 }, "ms"},
		{"latency max", func(r *Result) float64 { return r.Latency.Max }, "ms"},
		{"  p99 of deletions", func(r *Result) float64 { return r.DeletionLatency.P99 }, "ms"},
		{"  p99 of creations", func(r *Result) float64 { return r.CreationLatency.P99 }, "ms"},
		{"missed events", func(r *Result) float64 { return float64(r.Missed) }, ""},
		{"CPU, events", func(r *Result) float64 { return r.EventsCPUSeconds }, "s"},
		{"CPU per event", func(r *Result) float64 { return r.CPUPerEventMillis }, "ms"},
		{"CPU, startup", func(r *Result) float64 { return r.StartupCPUSeconds }, "s"},
		{"startup to idle", func(r *Result) float64 { return r.StartupSeconds }, "s"},
		{"peak RSS", func(r *Result) float64 { return float64(r.PeakRSSBytes) / (1 << 20) }, "MiB"},
		{"peak heap after GC", func(r *Result) float64 { return float64(r.PeakHeapBytes) / (1 << 20) }, "MiB"},
		{"status writes", func(r *Result) float64 { return float64(r.StatusWrites) }, ""},
		{"  of which conflicts", func(r *Result) float64 { return float64(r.StatusWriteConflicts) }, ""},
		{"real status transitions", func(r *Result) float64 { return float64(r.Transitions) }, ""},
		{"  of which happy flips", func(r *Result) float64 { return float64(r.HappyFlips) }, ""},
	}
	verbs := map[string]bool{}
	for _, r := range s.Results {
		for verb := range r.Requests {
			verbs[verb] = true
		}
	}
	for _, verb := range slices.Sorted(maps.Keys(verbs)) {
		rows = append(rows, row{"API " + verb + " requests", func(r *Result) float64 { return r.Requests[verb] }, ""})
	}
	return rows
}

// printTable writes one table per scenario: each implementation's figures over the E
// events, and the ratios of ours to the references.
func printTable(out io.Writer, report *Report) {
	for _, s := range report.Scenarios {
		fmt.Fprintf(out, "\nP=%d pods, F=%d Foos (%d naming a pod), E=%d pod events, %d namespaces, %d CPUs\n",
			s.Pods, s.Foos, s.Friends, s.Events, s.Namespaces, report.Machine.CPUs)
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		header := "\t"
		for _, r := range s.Results {
			header += r.Implementation + "\t"
		}
		header += "ours/naive\tours/floor\t"
		fmt.Fprintln(tw, header)
		us, nv, fl := s.result(ours), s.result(naive), s.result(floor)
		for _, row := range tableRows(s) {
			line := row.label
			if row.unit != "" {
				line += " (" + row.unit + ")"
			}
			line += "\t"
			for _, r := range s.Results {
				line += formatValue(row.value(r)) + "\t"
			}
			line += ratio(us, nv, row.value) + "\t" + ratio(us, fl, row.value) + "\t"
			fmt.Fprintln(tw, line)
		}
		_ = tw.Flush()
	}
	printTargets(out, report)
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

// printTargets compares ours with the targets at the largest scenario, and the
// per-event cost across pod counts. It reports; it never fails the run.
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
	us, nv, fl := largest.result(ours), largest.result(naive), largest.result(floor)
	if us == nil {
		return
	}
	fmt.Fprintf(out, "\nTargets for ours at P=%d, F=%d (reported, not enforced):\n", largest.Pods, largest.Foos)
	check := func(name string, met bool, detail string) {
		verdict := "met"
		if !met {
			verdict = "MISSED"
		}
		fmt.Fprintf(out, "  %-40s %-6s %s\n", name, verdict, detail)
	}
	if fl != nil && fl.Latency.P99 > 0 {
		r := us.Latency.P99 / fl.Latency.P99
		check("p99 latency <= 1.5x floor p99", r <= 1.5, fmt.Sprintf("%.2fms vs %.2fms: %.2fx", us.Latency.P99, fl.Latency.P99, r))
	}
	if nv != nil && nv.EventsCPUSeconds > 0 {
		r := us.EventsCPUSeconds / nv.EventsCPUSeconds
		check("CPU <= 1% of naive", r <= 0.01, fmt.Sprintf("%.3fs vs %.3fs: %.2f%%", us.EventsCPUSeconds, nv.EventsCPUSeconds, 100*r))
	}
	if nv != nil && nv.PeakHeapBytes > 0 {
		r := float64(us.PeakHeapBytes) / float64(nv.PeakHeapBytes)
		check("peak heap <= 25% of naive", r <= 0.25, fmt.Sprintf("%sMiB vs %sMiB: %.1f%%", mib(us.PeakHeapBytes), mib(nv.PeakHeapBytes), 100*r))
	}
	check("status writes == real transitions", us.StatusWrites == us.Transitions,
		fmt.Sprintf("%d writes (%d conflicts), %d transitions", us.StatusWrites, us.StatusWriteConflicts, us.Transitions))
	// Per-event cost from the fewest to the most pods, at the same number of Foos.
	for _, s := range report.Scenarios {
		if s.Foos != largest.Foos || s.Pods >= largest.Pods || s.result(ours) == nil {
			continue
		}
		small := s.result(ours)
		if s.Pods > smallestPods(report, largest.Foos) || small.CPUPerEventMillis == 0 {
			continue
		}
		r := us.CPUPerEventMillis / small.CPUPerEventMillis
		check(fmt.Sprintf("CPU per event flat P=%d..%d (<= 1.2x)", s.Pods, largest.Pods), r <= 1.2,
			fmt.Sprintf("%.3fms vs %.3fms: %.2fx", us.CPUPerEventMillis, small.CPUPerEventMillis, r))
	}
}

func smallestPods(report *Report, foos int) int {
	smallest := 0
	for _, s := range report.Scenarios {
		if s.Foos == foos && (smallest == 0 || s.Pods < smallest) {
			smallest = s.Pods
		}
	}
	return smallest
}

func writeJSON(path string, report *Report) error {
	data, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}
