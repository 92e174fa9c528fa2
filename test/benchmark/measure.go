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
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/klog/v2"

	"github.com/example/foo-operator/test/benchmark/report"
)

// runScenario starts a control plane with P pods and every implementation's F Foos, starts
// the implementations one by one, drives their pod events in alternating rounds, and then
// measures their bursts one at a time.
func runScenario(ctx context.Context, opts options, pods, foos, friends, run int) (*report.Scenario, error) {
	w := workload{pods: pods, foos: foos, friends: friends, namespaces: opts.namespaces}
	impls := newImplementations(opts, pods)
	if len(impls)*friends > pods {
		return nil, fmt.Errorf("%d implementations need %d friend pods each, more than the %d pods", len(impls), friends, pods)
	}
	scenario := &report.Scenario{
		Pods: pods, Foos: foos, Friends: friends, Events: opts.events, Namespaces: opts.namespaces, Run: run, InCluster: opts.inCluster,
	}
	dir := filepath.Join(opts.resultsDir, fmt.Sprintf("P%d-F%d-run%d", pods, foos, run))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}

	start := time.Now()
	c, err := startCluster(ctx, opts, w, impls, dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, impl := range impls {
			if impl.proc != nil {
				impl.proc.stop()
			}
			if impl.obs != nil {
				impl.obs.stop()
			}
		}
		if err := c.stop(); err != nil {
			klog.ErrorS(err, "Failed to stop the control plane")
		}
	}()
	klog.InfoS("Started the control plane", "duration", since(start))

	start = time.Now()
	if err := c.populate(ctx, impls); err != nil {
		return nil, err
	}
	klog.InfoS("Created the objects", "pods", pods, "foosEach", foos, "friendsEach", friends, "implementations", len(impls), "duration", since(start))

	listed, err := c.timePodList(ctx)
	if err != nil {
		return nil, err
	}
	scenario.PodListSeconds = listed.Seconds()
	klog.InfoS("Timed a bare paginated metadata list of every pod", "duration", listed.Round(time.Millisecond))

	for _, impl := range impls {
		if err := startImplementation(ctx, opts, c, impl, dir); err != nil {
			return nil, fmt.Errorf("%s: %w", impl.name, err)
		}
	}
	if err := driveInterleaved(ctx, opts, c, impls, dir); err != nil {
		return nil, err
	}
	for _, impl := range impls {
		if err := finishEvents(ctx, opts, c, impl, dir); err != nil {
			return nil, fmt.Errorf("%s: %w", impl.name, err)
		}
	}
	// The logs are complete once the processes have ended.
	for _, impl := range impls {
		impl.proc.stop()
		var err error
		if opts.breakdown {
			err = explainSlowest(ctx, impl)
		}
		impl.proc = nil
		if err != nil {
			return nil, fmt.Errorf("%s: %w", impl.name, err)
		}
	}

	if opts.burst > 0 && run == 1 {
		for _, impl := range impls {
			if err := measureBursts(ctx, opts, c, impl, dir); err != nil {
				return nil, fmt.Errorf("%s burst: %w", impl.name, err)
			}
		}
	}
	for _, impl := range impls {
		r := impl.result
		klog.InfoS("Measured", "implementation", impl.name, "pods", pods, "foos", foos, "run", run,
			"p50", ms(r.Latency.P50), "p99", ms(r.Latency.P99), "p999", ms(r.Latency.P999),
			"cpuPerEvent", ms(r.CPUPerEventMillis), "peakHeapMiB", mib(r.PeakHeapBytes),
			"statusWrites", r.StatusWrites, "transitions", r.Transitions)
		scenario.Results = append(scenario.Results, r)
	}
	return scenario, nil
}

// since, ms and mib format the figures of the driver's log lines, to the precision a reader
// of them needs.
func since(start time.Time) time.Duration { return time.Since(start).Round(100 * time.Millisecond) }

func ms(millis float64) string { return fmt.Sprintf("%.2fms", millis) }

func mib(bytes int64) string { return fmt.Sprintf("%.1f", float64(bytes)/(1<<20)) }
