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

// This file drives the pod events and bursts and times what each implementation does with them.

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/test/benchmark/report"
)

// driveInterleaved drives every implementation's pod events in alternating rounds (ours,
// naive, floor, ours, ...), so that the apiserver's warm-up and stalls spread over all of
// them. Before each round every process is idle, so that no round pays for another's
// follow-up work; the CPU an implementation uses during its own rounds is its events' CPU.
func driveInterleaved(ctx context.Context, opts options, c *cluster, impls []*implementation, dir string) error {
	rounds := eventRounds(opts.events, c.workload.friends)
	var profiled chan struct{}
	if opts.profile > 0 {
		profiled = make(chan struct{})
		go func() {
			defer close(profiled)
			for _, impl := range impls {
				path := filepath.Join(dir, impl.name+".cpu.pprof")
				if err := impl.proc.profileCPU(ctx, opts.profile, path); err != nil {
					klog.ErrorS(err, "Failed to profile", "implementation", impl.name)
				}
			}
		}()
	}
	start := time.Now()
	for r, round := range rounds {
		for _, impl := range impls {
			for _, other := range impls {
				if _, err := waitCPUIdle(ctx, opts.roundSettle, other.proc); err != nil {
					return err
				}
			}
			before, err := impl.proc.cpuSeconds()
			if err != nil {
				return err
			}
			if err := driveRound(ctx, opts, c, impl, round); err != nil {
				return fmt.Errorf("%s, round %d: %w", impl.name, r, err)
			}
			after, err := waitCPUIdle(ctx, opts.roundSettle, impl.proc)
			if err != nil {
				return err
			}
			impl.result.EventsCPUSeconds += after - before
		}
		if (r+1)%10 == 0 || r+1 == len(rounds) {
			klog.InfoS("Drove rounds of pod events", "done", r+1, "rounds", len(rounds), "duration", since(start))
		}
	}
	if profiled != nil {
		<-profiled
	}
	for _, impl := range impls {
		impl.result.EventsSeconds = time.Since(start).Seconds()
	}
	return nil
}

// driveRound drives one round of pod events for impl, one at a time: each waits until the
// benchmark's watch sees the Foo change, then pauses opts.eventGap, as pod events of a real
// cluster are spread out.
func driveRound(ctx context.Context, opts options, c *cluster, impl *implementation, round []podEvent) error {
	w := c.workload
	for _, event := range round {
		j := w.friendPod(impl.index, event.target)
		foo, podKey := w.foo(impl.index, event.target), types.NamespacedName{Namespace: w.namespace(j), Name: w.podName(j)}
		pod := c.pod(podKey.Namespace, podKey.Name, j)
		sent := time.Now()
		var err error
		if event.delete {
			err = c.client.Delete(ctx, pod, client.GracePeriodSeconds(0))
		} else {
			err = c.client.Create(ctx, pod)
		}
		answered := time.Now()
		if err != nil {
			return fmt.Errorf("pod %s: %w", podKey, err)
		}
		impl.expected[foo] = !event.delete
		seen, ok := impl.obs.waitFor(ctx, foo, !event.delete, opts.eventTimeout)
		if !ok {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			klog.InfoS("Missed a pod event: the Foo did not change in time", "implementation", impl.name, "foo", foo, "timeout", opts.eventTimeout)
			impl.result.Missed++
			continue
		}
		impl.events = append(impl.events, report.Event{Pod: podKey, Foo: foo, Deletion: event.delete, Sent: sent, Answered: answered, Seen: seen})
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(opts.eventGap):
		}
	}
	return nil
}

// finishEvents reads what the implementation's events cost, once it is idle again.
func finishEvents(ctx context.Context, opts options, c *cluster, impl *implementation, dir string) error {
	p, result := impl.proc, impl.result
	if err := waitIdle(ctx, opts.settle, c, impl); err != nil {
		return err
	}
	requests, err := p.requestsByVerb(ctx)
	if err != nil {
		return err
	}
	// The process's own metrics (queue and reconcile times, request latencies) are kept for
	// whoever needs to explain a figure.
	if err := p.saveMetrics(ctx, filepath.Join(dir, impl.name+".metrics.txt")); err != nil {
		return err
	}
	writes, conflicts, err := c.statusWrites(ctx, impl.group)
	if err != nil {
		return err
	}
	if result.PeakRSSBytes, err = p.peakRSSBytes(); err != nil {
		return err
	}
	if result.HeapAfterEventsBytes, err = p.heapAfterGCBytes(ctx); err != nil {
		return err
	}

	driven := len(impl.events) + result.Missed
	result.CPUPerEventMillis = 1000 * result.EventsCPUSeconds / float64(max(driven, 1))
	result.Requests = map[string]float64{}
	for verb, count := range requests {
		if delta := count - result.StartupRequests[verb]; delta > 0 {
			result.Requests[verb] = delta
		}
	}
	result.StatusWrites = int(writes - impl.writesReady)
	result.StatusWriteConflicts = int(conflicts - impl.conflictsReady)
	result.HappyFlips, result.Transitions = impl.obs.counts()
	result.PeakHeapBytes = max(result.HeapAfterSyncBytes, result.HeapAfterEventsBytes)
	result.SummarizeLatencies(impl.events)
	klog.InfoS("Drove the pod events", "implementation", impl.name, "events", driven, "missed", result.Missed)
	return nil
}

// measureBursts measures the implementation alone on the cluster: Foos naming opts.burst
// pods of one namespace, the pods all created at once, then all deleted at once (the
// namespace emptied), each time until every Foo shows it.
func measureBursts(ctx context.Context, opts options, c *cluster, impl *implementation, dir string) error {
	namespace := "burst-" + impl.name
	if err := c.createNamespace(ctx, namespace); err != nil {
		return err
	}
	keys := make([]types.NamespacedName, opts.burst)
	for i := range keys {
		keys[i] = types.NamespacedName{Namespace: namespace, Name: fmt.Sprintf("burst-%05d", i)}
		impl.expected[keys[i]] = false
	}
	if err := parallel(ctx, len(keys), func(i int) error {
		return createFoo(ctx, impl.foos, keys[i], fmt.Sprintf("burst-pod-%05d", i))
	}); err != nil {
		return fmt.Errorf("creating the burst's Foos: %w", err)
	}
	p, err := impl.start(ctx, opts, c, filepath.Join(dir, impl.name+"-burst.log"))
	if err != nil {
		return err
	}
	impl.proc = p
	defer func() { p.stop(); impl.proc = nil }()
	if err := p.WaitReady(ctx, 10*time.Minute); err != nil {
		return err
	}
	if err := waitIdle(ctx, opts.settle, c, impl); err != nil {
		return err
	}

	burst := func(happy bool, do func() error) (float64, error) {
		if _, err := waitCPUIdle(ctx, opts.settle, p); err != nil {
			return 0, err
		}
		want := map[types.NamespacedName]bool{}
		for _, key := range keys {
			want[key], impl.expected[key] = happy, happy
		}
		sent := time.Now()
		if err := do(); err != nil {
			return 0, err
		}
		done, err := impl.obs.waitAll(ctx, p, want, 30*time.Minute)
		if err != nil {
			return 0, fmt.Errorf("waiting for every burst Foo to show happy=%t: %w; see %s", happy, err, p.LogHint())
		}
		return done.Sub(sent).Seconds(), nil
	}
	impl.result.BurstCreateSeconds, err = burst(true, func() error {
		return parallel(ctx, len(keys), func(i int) error {
			return c.client.Create(ctx, c.pod(namespace, fmt.Sprintf("burst-pod-%05d", i), i))
		})
	})
	if err != nil {
		return err
	}
	impl.result.BurstDeleteSeconds, err = burst(false, func() error {
		return c.client.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(namespace), client.GracePeriodSeconds(0))
	})
	if err != nil {
		return err
	}
	impl.result.BurstPods = len(keys)
	klog.InfoS("Measured the bursts", "implementation", impl.name, "pods", len(keys),
		"createdToAllHappy", fmt.Sprintf("%.2fs", impl.result.BurstCreateSeconds),
		"deletedToAllUnhappy", fmt.Sprintf("%.2fs", impl.result.BurstDeleteSeconds))
	return waitIdle(ctx, opts.settle, c, impl)
}

// podEvent is one pod event the benchmark drives: deleting or creating again the friend pod
// of an implementation's Foo target.
type podEvent struct {
	target int
	delete bool
}

// eventBlock is how many Foos one round of events touches.
const eventBlock = 10

// eventRounds returns n pod events (n even) in rounds: each deletes the friend pods of up
// to eventBlock Foos, then creates them again, and the next round moves on to the next
// Foos. Consecutive events thus concern different Foos, and after every round the pods
// are as they were.
func eventRounds(n, friends int) [][]podEvent {
	var rounds [][]podEvent
	for next, planned := 0, 0; planned < n; {
		size := min(eventBlock, friends, (n-planned)/2)
		round := make([]podEvent, 0, 2*size)
		for _, deleting := range []bool{true, false} {
			for j := range size {
				round = append(round, podEvent{target: (next + j) % friends, delete: deleting})
			}
		}
		rounds = append(rounds, round)
		next += size
		planned += len(round)
	}
	return rounds
}
