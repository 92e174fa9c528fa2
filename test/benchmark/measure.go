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
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// runScenario starts a control plane with P pods and F Foos and measures each implementation
// on it in turn.
func runScenario(ctx context.Context, opts options, pods, foos, friends int) (*Scenario, error) {
	w := workload{pods: pods, foos: foos, friends: friends, namespaces: opts.namespaces}
	scenario := &Scenario{Pods: pods, Foos: foos, Friends: friends, Events: opts.events, Namespaces: opts.namespaces}

	start := time.Now()
	c, err := startCluster(ctx, opts, w, opts.resultsDir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := c.stop(); err != nil {
			klog.ErrorS(err, "Failed to stop the control plane")
		}
	}()
	klog.InfoS("Started the control plane", "duration", since(start))

	start = time.Now()
	if err := c.populate(ctx); err != nil {
		return nil, err
	}
	klog.InfoS("Created the objects", "pods", pods, "foos", foos, "friends", friends, "namespaces", opts.namespaces, "duration", since(start))

	for _, name := range opts.implementations {
		result, err := measure(ctx, opts, c, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		klog.InfoS("Measured", "implementation", name, "pods", pods, "foos", foos,
			"p50", ms(result.Latency.P50), "p99", ms(result.Latency.P99),
			"cpuPerEvent", ms(result.CPUPerEventMillis), "peakRSSMiB", mib(result.PeakRSSBytes),
			"statusWrites", result.StatusWrites, "transitions", result.Transitions)
		scenario.Results = append(scenario.Results, result)
	}
	return scenario, nil
}

// measure runs one implementation against the cluster: it resets the Foos' statuses,
// starts the process, waits until it is ready and idle, drives the pod events, and reads
// the process's figures before stopping it.
func measure(ctx context.Context, opts options, c *cluster, name string) (*Result, error) {
	w := c.workload
	if err := c.resetStatuses(ctx); err != nil {
		return nil, fmt.Errorf("resetting statuses: %w", err)
	}
	writesBefore, _, err := c.statusWrites(ctx)
	if err != nil {
		return nil, err
	}

	var extraArgs []string
	if name == ours {
		extraArgs = opts.managerArgs
	}
	p, err := startProcess(name, opts.binaries[name], extraArgs, c.Kubeconfig, logPath(opts.resultsDir, name, w.pods, w.foos))
	if err != nil {
		return nil, err
	}
	defer p.stop()
	if err := p.waitReady(ctx, 10*time.Minute); err != nil {
		return nil, err
	}
	// A process can look idle while its first lists are still on their way, before its
	// startup pass has begun; once it has used no CPU for a while too, it is done.
	for _, wait := range []func() error{
		func() error { return waitIdle(ctx, opts, c, p) },
		func() error { _, err := waitCPUIdle(ctx, opts, p); return err },
		func() error { return waitIdle(ctx, opts, c, p) },
	} {
		if err := wait(); err != nil {
			return nil, err
		}
	}
	result := &Result{Implementation: name, StartupSeconds: time.Since(p.started).Seconds()}

	// The figures before the events. Reading the heap and the metrics costs the process CPU,
	// so both come before the CPU time, which is read once the process is idle again.
	if result.HeapAfterSyncBytes, err = p.heapAfterGCBytes(ctx); err != nil {
		return nil, err
	}
	if result.StartupRequests, err = p.requestsByVerb(ctx); err != nil {
		return nil, err
	}
	writesReady, conflictsReady, err := c.statusWrites(ctx)
	if err != nil {
		return nil, err
	}
	result.StartupStatusWrites = int(writesReady - writesBefore)
	if result.StartupCPUSeconds, err = waitCPUIdle(ctx, opts, p); err != nil {
		return nil, err
	}
	klog.InfoS("Implementation ready and idle", "implementation", name, "duration", since(p.started), "cpuSeconds", result.StartupCPUSeconds)

	obs, err := observe(ctx, c.client)
	if err != nil {
		return nil, err
	}
	defer obs.stop()

	var profiled chan struct{}
	if opts.profile > 0 {
		profiled = make(chan struct{})
		path := filepath.Join(opts.resultsDir, fmt.Sprintf("%s-P%d-F%d.cpu.pprof", name, w.pods, w.foos))
		go func() {
			defer close(profiled)
			if err := p.profileCPU(ctx, opts.profile, path); err != nil {
				klog.ErrorS(err, "Failed to profile", "implementation", name)
			}
		}()
	}

	start := time.Now()
	var latencies, deletions, creations []time.Duration
	for i, event := range eventPlan(opts.events, w.friends) {
		foo, pod := w.foo(event.target), c.pod(event.target)
		sent := time.Now()
		if event.delete {
			err = c.client.Delete(ctx, pod, client.GracePeriodSeconds(0))
		} else {
			err = c.client.Create(ctx, pod)
		}
		if err != nil {
			return nil, fmt.Errorf("event %d on pod %s/%s: %w", i, pod.Namespace, pod.Name, err)
		}
		seen, ok := obs.waitFor(ctx, foo, !event.delete, opts.eventTimeout)
		if !ok {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			result.Missed++
			continue
		}
		latency := seen.Sub(sent)
		latencies = append(latencies, latency)
		if event.delete {
			deletions = append(deletions, latency)
		} else {
			creations = append(creations, latency)
		}
		// Pod events of a real cluster are spread out; a short pause keeps each event from
		// queueing behind the follow-up work of the one before.
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(opts.eventGap):
		}
	}
	eventsDuration := time.Since(start)
	if profiled != nil {
		<-profiled
	}

	// The CPU time first, once the process has finished with the last event, then what costs
	// the process CPU to read.
	cpu, err := waitCPUIdle(ctx, opts, p)
	if err != nil {
		return nil, err
	}
	if err := waitIdle(ctx, opts, c, p); err != nil {
		return nil, err
	}
	requests, err := p.requestsByVerb(ctx)
	if err != nil {
		return nil, err
	}
	// The process's own metrics (queue and reconcile times, request latencies) are kept for
	// whoever needs to explain a figure.
	if err := p.saveMetrics(ctx, filepath.Join(opts.resultsDir, fmt.Sprintf("%s-P%d-F%d.metrics.txt", name, w.pods, w.foos))); err != nil {
		return nil, err
	}
	writesAfter, conflictsAfter, err := c.statusWrites(ctx)
	if err != nil {
		return nil, err
	}
	if result.PeakRSSBytes, err = p.peakRSSBytes(); err != nil {
		return nil, err
	}
	if result.HeapAfterEventsBytes, err = p.heapAfterGCBytes(ctx); err != nil {
		return nil, err
	}

	result.EventsSeconds = eventsDuration.Seconds()
	result.EventsCPUSeconds = cpu - result.StartupCPUSeconds
	result.CPUPerEventMillis = 1000 * result.EventsCPUSeconds / float64(opts.events)
	result.Requests = map[string]float64{}
	for verb, count := range requests {
		if delta := count - result.StartupRequests[verb]; delta > 0 {
			result.Requests[verb] = delta
		}
	}
	result.StatusWrites = int(writesAfter - writesReady)
	result.StatusWriteConflicts = int(conflictsAfter - conflictsReady)
	result.HappyFlips, result.Transitions = obs.counts()
	result.PeakHeapBytes = max(result.HeapAfterSyncBytes, result.HeapAfterEventsBytes)
	result.LatenciesMillis, result.Latency = summarize(latencies)
	_, result.DeletionLatency = summarize(deletions)
	_, result.CreationLatency = summarize(creations)
	klog.InfoS("Drove the pod events", "implementation", name, "events", opts.events, "missed", result.Missed, "duration", eventsDuration.Round(time.Millisecond))
	return result, nil
}

// waitIdle waits until the process has made no API request for opts.settle and every Foo
// shows the status its friend's existence calls for.
func waitIdle(ctx context.Context, opts options, c *cluster, p *process) error {
	const poll = 250 * time.Millisecond
	deadline := time.Now().Add(15 * time.Minute)
	var last map[string]float64
	quietSince := time.Now()
	for {
		requests, err := p.requestsByVerb(ctx)
		if err != nil {
			return err
		}
		if !maps.Equal(requests, last) {
			last, quietSince = requests, time.Now()
		} else if time.Since(quietSince) >= opts.settle {
			correct, err := c.statusesCorrect(ctx)
			if err != nil {
				return err
			}
			if correct {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not settle; see %s", p.name, p.LogPath)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.Exited():
			return fmt.Errorf("%s exited; see %s", p.name, p.LogPath)
		case <-time.After(poll):
		}
	}
}

// waitCPUIdle waits until the process has used no CPU for opts.settle, watching it only
// through /proc so that the watching costs it nothing, and returns its CPU time then.
func waitCPUIdle(ctx context.Context, opts options, p *process) (float64, error) {
	const poll = 50 * time.Millisecond
	deadline := time.Now().Add(15 * time.Minute)
	last, err := p.cpuSeconds()
	if err != nil {
		return 0, err
	}
	quietSince := time.Now()
	for time.Since(quietSince) < opts.settle {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-p.Exited():
			return 0, fmt.Errorf("%s exited; see %s", p.name, p.LogPath)
		case <-time.After(poll):
		}
		cpu, err := p.cpuSeconds()
		if err != nil {
			return 0, err
		}
		if cpu != last {
			last, quietSince = cpu, time.Now()
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%s never stopped using CPU; see %s", p.name, p.LogPath)
		}
	}
	return last, nil
}

// statusWrites returns how many writes of the Foo status subresource the apiserver has
// served, no-op and rejected writes included, and how many of them it rejected for a
// conflict, from its apiserver_request_total metric.
func (c *cluster) statusWrites(ctx context.Context) (writes, conflicts float64, err error) {
	clientset, err := kubernetes.NewForConfig(c.Config)
	if err != nil {
		return 0, 0, err
	}
	exposition, err := clientset.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("reading the apiserver's metrics: %w", err)
	}
	// The verb label holds the HTTP method; server-side apply is a PATCH too.
	for _, verb := range []string{"PUT", "PATCH"} {
		byCode := sumCounter(exposition, "apiserver_request_total", "code",
			map[string]string{"group": tutorialv1.GroupVersion.Group, "resource": "foos", "subresource": "status", "verb": verb})
		for code, count := range byCode {
			writes += count
			if code == "409" {
				conflicts += count
			}
		}
	}
	return writes, conflicts, nil
}

// observer watches the Foos and notes each change of status.happy with the time it was
// seen. It also counts every change of the status as a whole: a Foo may change its status
// without becoming happy or unhappy, as when its friend goes from terminating to gone.
type observer struct {
	watcher watch.Interface
	changes chan happyChange
	done    chan struct{}

	mu            sync.Mutex
	happyFlips    int
	statusChanges int
}

type happyChange struct {
	foo   types.NamespacedName
	happy bool
	seen  time.Time
}

func observe(ctx context.Context, c client.WithWatch) (*observer, error) {
	var foos tutorialv1.FooList
	if err := c.List(ctx, &foos); err != nil {
		return nil, err
	}
	statuses := make(map[types.NamespacedName]tutorialv1.FooStatus, len(foos.Items))
	for _, foo := range foos.Items {
		statuses[types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}] = foo.Status
	}
	watcher, err := c.Watch(ctx, &tutorialv1.FooList{}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: foos.ResourceVersion}})
	if err != nil {
		return nil, err
	}
	o := &observer{watcher: watcher, changes: make(chan happyChange, 1<<16), done: make(chan struct{})}
	go func() {
		defer close(o.done)
		for event := range watcher.ResultChan() {
			foo, ok := event.Object.(*tutorialv1.Foo)
			if !ok || (event.Type != watch.Modified && event.Type != watch.Added) {
				continue
			}
			seen := time.Now()
			key := types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}
			previous, known := statuses[key]
			if known && equality.Semantic.DeepEqual(previous, foo.Status) {
				continue
			}
			statuses[key] = foo.Status
			flipped := !known || previous.Happy != foo.Status.Happy
			o.mu.Lock()
			o.statusChanges++
			if flipped {
				o.happyFlips++
			}
			o.mu.Unlock()
			if !flipped {
				continue
			}
			select {
			case o.changes <- happyChange{foo: key, happy: foo.Status.Happy, seen: seen}:
			default:
				fmt.Fprintln(os.Stderr, "observer: dropped a change; the buffer is full")
			}
		}
	}()
	return o, nil
}

// waitFor returns when foo was seen changing to happy, skipping changes of other Foos.
func (o *observer) waitFor(ctx context.Context, foo types.NamespacedName, happy bool, timeout time.Duration) (time.Time, bool) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case change := <-o.changes:
			if change.foo == foo && change.happy == happy {
				return change.seen, true
			}
		case <-timer.C:
			return time.Time{}, false
		case <-ctx.Done():
			return time.Time{}, false
		}
	}
}

// counts returns how many changes of status.happy, and of the status as a whole, the
// observer has seen.
func (o *observer) counts() (happyFlips, statusChanges int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.happyFlips, o.statusChanges
}

func (o *observer) stop() {
	o.watcher.Stop()
	<-o.done
}

// summarize returns latencies in milliseconds, sorted, and their percentiles.
func summarize(latencies []time.Duration) ([]float64, Percentiles) {
	slices.Sort(latencies)
	millis := make([]float64, len(latencies))
	for i, latency := range latencies {
		millis[i] = float64(latency) / float64(time.Millisecond)
	}
	return millis, Percentiles{
		P50: percentile(millis, 0.50),
		P90: percentile(millis, 0.90),
		P99: percentile(millis, 0.99),
		Max: percentile(millis, 1),
	}
}

// podEvent is one pod event the benchmark drives: deleting or creating again the friend pod
// of Foo target.
type podEvent struct {
	target int
	delete bool
}

// eventBlock is how many Foos one round of the event plan touches.
const eventBlock = 10

// eventPlan returns n pod events (n even) in rounds: each deletes the friend pods of up to
// eventBlock Foos, then creates them again, and the next round moves on to the next Foos.
// Consecutive events thus concern different Foos, and every pod deleted comes back.
func eventPlan(n, friends int) []podEvent {
	plan := make([]podEvent, 0, n)
	for next := 0; len(plan) < n; {
		size := min(eventBlock, friends, (n-len(plan))/2)
		for _, deleting := range []bool{true, false} {
			for j := range size {
				plan = append(plan, podEvent{target: (next + j) % friends, delete: deleting})
			}
		}
		next += size
	}
	return plan
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
