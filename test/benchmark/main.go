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

// Command benchmark measures the Foo controller side by side with two references, on a
// local kube-apiserver and etcd: the tutorial's naive design, and the floor, a watcher
// that writes a status as soon as it sees a pod event. For every scenario (P pods, F Foos)
// it starts a fresh control plane and creates the pods, and F Foos of its own kind for
// each implementation; it starts every implementation as its own process, drives E pod
// events for each in alternating rounds, then measures a burst of pod creations and one of
// deletions for each alone. It prints a table, and writes a JSON file and an SVG plot to
// the results folder: package report makes all three from what it measured.
//
// It reports; it never fails on timing.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/example/foo-operator/test/benchmark/report"
)

func main() {
	klog.InitFlags(nil)
	opts, err := parseFlags()
	if err != nil {
		klog.ErrorS(err, "Invalid flags")
		os.Exit(2)
	}
	ctrllog.SetLogger(klog.NewKlogr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, opts)
	stop()
	if err != nil {
		klog.ErrorS(err, "Benchmark failed")
		os.Exit(1)
	}
}

func run(ctx context.Context, opts options) error {
	if err := os.MkdirAll(opts.resultsDir, 0o755); err != nil {
		return err
	}
	results := &report.Report{
		Started:    time.Now().UTC().Truncate(time.Second),
		Machine:    thisMachine(),
		Events:     opts.events,
		FoosPerPod: opts.foosPerPod,
	}
	for _, pods := range opts.pods {
		foosList := opts.foos
		if opts.foosPerPod > 0 {
			foosList = []int{max(1, int(float64(pods)*opts.foosPerPod+0.5))}
		}
		for _, foos := range foosList {
			friends := int(float64(foos)*opts.friendShare + 0.5)
			if friends*len(opts.implementations) > pods || friends == 0 {
				klog.InfoS("Skipping scenario: every implementation's Foos that name a pod need pods of their own",
					"pods", pods, "foos", foos, "friends", friends)
				continue
			}
			for run := 1; run <= opts.runs; run++ {
				scenario, err := runScenario(ctx, opts, pods, foos, friends, run)
				if err != nil {
					return fmt.Errorf("scenario P=%d F=%d run %d: %w", pods, foos, run, err)
				}
				results.Scenarios = append(results.Scenarios, scenario)
				// Written after every run, so that a long sweep stopped halfway keeps what it measured.
				if err := results.SaveJSON(filepath.Join(opts.resultsDir, "results.json")); err != nil {
					return err
				}
			}
		}
	}

	results.WriteTables(os.Stdout)
	jsonPath, svgPath := filepath.Join(opts.resultsDir, "results.json"), filepath.Join(opts.resultsDir, "results.svg")
	if err := results.SaveJSON(jsonPath); err != nil {
		return err
	}
	if err := results.SavePlot(svgPath); err != nil {
		return err
	}
	klog.InfoS("Wrote the results", "json", jsonPath, "plot", svgPath)
	return nil
}

// thisMachine describes the machine the benchmark runs on, for the report.
func thisMachine() report.Machine {
	return report.Machine{CPUs: runtime.NumCPU(), CPUModel: cpuModel(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH}
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
