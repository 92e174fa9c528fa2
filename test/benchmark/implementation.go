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

// This file starts and stops the compared implementations and waits for them to be idle.

package main

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/test/benchmark/fooapi"
	"github.com/example/foo-operator/test/benchmark/report"
)

// implementation is one of the compared controllers in one scenario: its Foos, its
// process, and what the benchmark has measured of it so far.
type implementation struct {
	name string
	// group is the API group of its Foos; index picks its share of the friend pods.
	group string
	index int
	// foos is the benchmark's client for its Foos; expected says, for each of them, whether
	// its friend exists now.
	foos     client.WithWatch
	expected map[types.NamespacedName]bool

	proc   runner
	obs    *observer
	result *report.Result
	events []report.Event
	// writesReady is the apiserver's count of its status writes once it was ready.
	writesReady, conflictsReady float64
}

// newImplementations lists the implementations to run in a scenario with the given pods.
func newImplementations(opts options, pods int) []*implementation {
	var impls []*implementation
	for _, name := range opts.implementations {
		if name == report.Naive && pods > opts.naiveMaxPods {
			klog.InfoS("Leaving the naive design out: it copies every pod on every reconcile, which takes too long at this size",
				"pods", pods, "naiveMaxPods", opts.naiveMaxPods)
			continue
		}
		group := tutorialv1.GroupVersion.Group
		if name != report.Ours {
			group = name + ".bench.my.domain"
		}
		impls = append(impls, &implementation{
			name: name, group: group, index: len(impls),
			expected: map[types.NamespacedName]bool{},
			result:   &report.Result{Implementation: name},
		})
	}
	return impls
}

// args are the flags the benchmark gives the implementation's process: with the breakdown,
// every one logs the moments of each event at V(2), to the nanosecond; the references are
// pointed at their own Foos.
func (impl *implementation) args(opts options) []string {
	level := "info"
	if opts.breakdown {
		level = "2"
	}
	args := []string{"--zap-log-level=" + level, "--zap-time-encoding=rfc3339nano"}
	if impl.name == report.Ours {
		return append(args, opts.managerArgs...)
	}
	return append(args, "--group="+impl.group)
}

// start runs the implementation: as a process on this machine, or, with --in-cluster, ours
// as the operator's pod on the cluster's node. Each branch checks its own error: a nil
// *operatorPod or *process returned as a runner would be a runner that is not nil.
func (impl *implementation) start(ctx context.Context, opts options, c *cluster, logPath string) (runner, error) {
	if impl.name == report.Ours && opts.inCluster {
		p, err := startOperatorPod(ctx, c, c.operatorImage, impl.args(opts), logPath)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	p, err := startProcess(impl.name, opts.binaries[impl.name], impl.args(opts), c.kubeconfig, logPath)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// startImplementation gives the implementation's Foos a wrong status, starts its process,
// and measures its startup: until every Foo is right, then until it is ready and idle.
func startImplementation(ctx context.Context, opts options, c *cluster, impl *implementation, dir string) error {
	result := impl.result
	if err := c.resetStatuses(ctx, impl); err != nil {
		return fmt.Errorf("resetting statuses: %w", err)
	}
	writesBefore, _, err := c.statusWrites(ctx, impl.group)
	if err != nil {
		return err
	}
	if impl.obs, err = observe(ctx, impl.foos); err != nil {
		return err
	}

	p, err := impl.start(ctx, opts, c, filepath.Join(dir, impl.name+".log"))
	if err != nil {
		return err
	}
	impl.proc = p
	correct, err := impl.obs.waitAll(ctx, p, impl.expected, 15*time.Minute)
	if err != nil {
		return fmt.Errorf("waiting for its startup to correct every Foo: %w; see %s", err, p.LogHint())
	}
	result.StartupToCorrectSeconds = correct.Sub(p.Started()).Seconds()
	if synced, ok, err := syncedAt(ctx, impl); err != nil {
		return err
	} else if ok {
		result.StartupToSyncedSeconds = synced.Sub(p.Started()).Seconds()
	}
	if err := p.WaitReady(ctx, 10*time.Minute); err != nil {
		return err
	}
	// A process can look idle while its first lists are still on their way, before its
	// startup pass has begun; once it has used no CPU for a while too, it is done.
	for _, wait := range []func() error{
		func() error { return waitIdle(ctx, opts.settle, c, impl) },
		func() error { _, err := waitCPUIdle(ctx, opts.settle, p); return err },
		func() error { return waitIdle(ctx, opts.settle, c, impl) },
	} {
		if err := wait(); err != nil {
			return err
		}
	}
	result.StartupSeconds = time.Since(p.Started()).Seconds()

	// Reading the heap and the metrics costs the process CPU, so both come before the CPU
	// time, which is read once the process is idle again.
	if result.HeapAfterSyncBytes, err = p.heapAfterGCBytes(ctx); err != nil {
		return err
	}
	if result.StartupRequests, err = p.requestsByVerb(ctx); err != nil {
		return err
	}
	if impl.writesReady, impl.conflictsReady, err = c.statusWrites(ctx, impl.group); err != nil {
		return err
	}
	result.StartupStatusWrites = int(impl.writesReady - writesBefore)
	if result.StartupCPUSeconds, err = waitCPUIdle(ctx, opts.settle, p); err != nil {
		return err
	}
	impl.obs.resetCounts()
	klog.InfoS("Implementation ready and idle", "implementation", impl.name,
		"everyFooCorrectAfter", time.Duration(result.StartupToCorrectSeconds*float64(time.Second)).Round(time.Millisecond),
		"idleAfter", since(p.Started()), "cpuSeconds", result.StartupCPUSeconds)
	return nil
}

// waitIdle waits until the process has made no API request for settle and every one of its
// Foos shows the status its friend's existence calls for.
func waitIdle(ctx context.Context, settle time.Duration, c *cluster, impl *implementation) error {
	const poll = 250 * time.Millisecond
	p := impl.proc
	deadline := time.Now().Add(15 * time.Minute)
	var last map[string]float64
	quietSince, lastSeen := time.Now(), "no quiet second yet"
	for {
		requests, err := p.requestsByVerb(ctx)
		if err != nil {
			return err
		}
		if !maps.Equal(requests, last) {
			last, quietSince = requests, time.Now()
		} else if time.Since(quietSince) >= settle {
			correct, why, err := c.statusesCorrect(ctx, impl)
			if err != nil {
				return err
			}
			if correct {
				return nil
			}
			lastSeen = why
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not settle (last seen: %s); see %s", p.Name(), lastSeen, p.LogHint())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.Exited():
			return fmt.Errorf("%s exited; see %s", p.Name(), p.LogHint())
		case <-time.After(poll):
		}
	}
}

// waitCPUIdle waits until the process has used under 1% of a CPU for settle, watching it
// only through /proc or its cgroup so that the watching costs it nothing, and returns its
// CPU time then. A process's /proc times move in steps of 10 ms, so there this means no CPU
// at all over the short settle periods; a cgroup counts nanoseconds, and an idle manager
// still wakes up (its work queue updates its metrics every 500 ms, for about 0.3 ms).
func waitCPUIdle(ctx context.Context, settle time.Duration, p runner) (float64, error) {
	const poll = 50 * time.Millisecond
	deadline := time.Now().Add(15 * time.Minute)
	idleCPU := settle.Seconds() / 100
	last, err := p.cpuSeconds()
	if err != nil {
		return 0, err
	}
	quietFrom, quietSince := last, time.Now()
	for time.Since(quietSince) < settle {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-p.Exited():
			return 0, fmt.Errorf("%s exited; see %s", p.Name(), p.LogHint())
		case <-time.After(poll):
		}
		cpu, err := p.cpuSeconds()
		if err != nil {
			return 0, err
		}
		if last = cpu; cpu-quietFrom >= idleCPU {
			quietFrom, quietSince = cpu, time.Now()
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%s never stopped using CPU (%.2fs used so far); see %s", p.Name(), last, p.LogHint())
		}
	}
	return last, nil
}

// explainSlowest breaks down the implementation's slowest events from its log, which is
// complete once its process has ended. The naive design logs none of the moments.
func explainSlowest(ctx context.Context, impl *implementation) error {
	if impl.name == report.Naive {
		return nil
	}
	log, err := readLog(ctx, impl)
	if err != nil {
		return err
	}
	return impl.result.ExplainSlowest(log, impl.events)
}

// controllerRuntimeWorkersStarted is the message controller-runtime logs when a controller
// starts its workers, which it does once the caches have synced. It is controller-runtime's
// own, so it is named here rather than in internal/controller.
const controllerRuntimeWorkersStarted = "Starting workers"

// syncedAt reads from the implementation's log when it knew every pod and Foo: the first
// "Starting workers" of ours (controller-runtime starts its workers once the caches have
// synced), "Listed pods and Foos" of the floor. The naive design logs neither.
func syncedAt(ctx context.Context, impl *implementation) (time.Time, bool, error) {
	message := map[string]string{report.Ours: controllerRuntimeWorkersStarted, report.Floor: fooapi.LogFloorListed}[impl.name]
	if message == "" {
		return time.Time{}, false, nil
	}
	log, err := readLog(ctx, impl)
	if err != nil {
		return time.Time{}, false, err
	}
	if at, ok := log.FirstLogged(message); ok {
		return at, true, nil
	}
	return time.Time{}, false, fmt.Errorf("%s never logged %q", impl.proc.LogHint(), message)
}

// readLog reads the log of the implementation's process so far.
func readLog(ctx context.Context, impl *implementation) (*report.Log, error) {
	path, err := impl.proc.Log(ctx)
	if err != nil {
		return nil, err
	}
	return report.ReadLog(path)
}
