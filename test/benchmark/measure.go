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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
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
	result *Result
	events []eventRecord
	// writesReady is the apiserver's count of its status writes once it was ready.
	writesReady, conflictsReady float64
}

// eventRecord is one pod event driven for an implementation and when its effect was seen.
type eventRecord struct {
	pod, foo types.NamespacedName
	delete   bool
	// sent is when the benchmark sent the pod's create or delete, answered when the
	// apiserver answered it, seen when the benchmark's watch saw the Foo change.
	sent, answered, seen time.Time
}

// newImplementations lists the implementations to run in a scenario with the given pods.
func newImplementations(opts options, pods int) []*implementation {
	var impls []*implementation
	for _, name := range opts.implementations {
		if name == naive && pods > opts.naiveMaxPods {
			klog.InfoS("Leaving the naive design out: it copies every pod on every reconcile, which takes too long at this size",
				"pods", pods, "naiveMaxPods", opts.naiveMaxPods)
			continue
		}
		group := tutorialv1.GroupVersion.Group
		if name != ours {
			group = name + ".bench.my.domain"
		}
		impls = append(impls, &implementation{
			name: name, group: group, index: len(impls),
			expected: map[types.NamespacedName]bool{},
			result:   &Result{Implementation: name},
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
	if impl.name == ours {
		return append(args, opts.managerArgs...)
	}
	return append(args, "--group="+impl.group)
}

// start runs the implementation: as a process on this machine, or, with --in-cluster, ours
// as the operator's pod on the cluster's node. Each branch checks its own error: a nil
// *operatorPod or *process returned as a runner would be a runner that is not nil.
func (impl *implementation) start(ctx context.Context, opts options, c *cluster, logPath string) (runner, error) {
	if impl.name == ours && opts.inCluster {
		p, err := startOperatorPod(ctx, c, c.operatorImage, impl.args(opts), logPath)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	p, err := startProcess(impl.name, opts.binaries[impl.name], impl.args(opts), c.Kubeconfig, logPath)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// runScenario starts a control plane with P pods and every implementation's F Foos, starts
// the implementations one by one, drives their pod events in alternating rounds, and then
// measures their bursts one at a time.
func runScenario(ctx context.Context, opts options, pods, foos, friends, run int) (*Scenario, error) {
	w := workload{pods: pods, foos: foos, friends: friends, namespaces: opts.namespaces}
	impls := newImplementations(opts, pods)
	if len(impls)*friends > pods {
		return nil, fmt.Errorf("%d implementations need %d friend pods each, more than the %d pods", len(impls), friends, pods)
	}
	scenario := &Scenario{
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
		func() error { return waitIdle(ctx, opts, c, impl) },
		func() error { _, err := waitCPUIdle(ctx, opts.settle, p); return err },
		func() error { return waitIdle(ctx, opts, c, impl) },
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
		impl.events = append(impl.events, eventRecord{pod: podKey, foo: foo, delete: event.delete, sent: sent, answered: answered, seen: seen})
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
	if err := waitIdle(ctx, opts, c, impl); err != nil {
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
	var latencies, deletions, creations, podWrites []time.Duration
	for _, event := range impl.events {
		// The pod event happened when its write was stored, which the apiserver's answer
		// tells; how long the write itself took is the apiserver's, recorded apart.
		latency := event.seen.Sub(event.answered)
		latencies = append(latencies, latency)
		podWrites = append(podWrites, event.answered.Sub(event.sent))
		if event.delete {
			deletions = append(deletions, latency)
		} else {
			creations = append(creations, latency)
		}
	}
	result.LatenciesMillis, result.Latency = summarize(latencies)
	result.P99Interval = bootstrapInterval(result.LatenciesMillis, 0.99)
	_, result.DeletionLatency = summarize(deletions)
	_, result.CreationLatency = summarize(creations)
	_, result.PodWrite = summarize(podWrites)
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
	if err := waitIdle(ctx, opts, c, impl); err != nil {
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
	return waitIdle(ctx, opts, c, impl)
}

// waitIdle waits until the process has made no API request for opts.settle and every one
// of its Foos shows the status its friend's existence calls for.
func waitIdle(ctx context.Context, opts options, c *cluster, impl *implementation) error {
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
		} else if time.Since(quietSince) >= opts.settle {
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

// statusWrites returns how many writes of the status subresource of the Foos of group the
// apiserver has served, no-op and rejected writes included, and how many of them it
// rejected for a conflict, from its apiserver_request_total metric.
func (c *cluster) statusWrites(ctx context.Context, group string) (writes, conflicts float64, err error) {
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
		byCode, err := sumCounter(exposition, "apiserver_request_total", "code",
			map[string]string{"group": group, "resource": "foos", "subresource": "status", "verb": verb})
		if err != nil {
			return 0, 0, fmt.Errorf("reading the apiserver's metrics: %w", err)
		}
		for code, count := range byCode {
			writes += count
			if code == "409" {
				conflicts += count
			}
		}
	}
	return writes, conflicts, nil
}

// observer watches one kind of Foo and notes, for each Foo, its status.happy and when that
// last changed. It also counts every change of the status as a whole: a Foo may change its
// status without becoming happy or unhappy, as when its friend goes from terminating to gone.
type observer struct {
	watcher watch.Interface
	changes chan happyChange
	done    chan struct{}

	mu            sync.Mutex
	happy         map[types.NamespacedName]happyChange
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
	o := &observer{changes: make(chan happyChange, 1<<16), done: make(chan struct{}), happy: map[types.NamespacedName]happyChange{}}
	statuses := make(map[types.NamespacedName]tutorialv1.FooStatus, len(foos.Items))
	for _, foo := range foos.Items {
		key := types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}
		statuses[key] = foo.Status
		o.happy[key] = happyChange{foo: key, happy: foo.Status.Happy}
	}
	watcher, err := c.Watch(ctx, &tutorialv1.FooList{}, &client.ListOptions{Raw: &metav1.ListOptions{ResourceVersion: foos.ResourceVersion}})
	if err != nil {
		return nil, err
	}
	o.watcher = watcher
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
			change := happyChange{foo: key, happy: foo.Status.Happy, seen: seen}
			o.mu.Lock()
			o.statusChanges++
			if flipped {
				o.happyFlips++
				o.happy[key] = change
			}
			o.mu.Unlock()
			if !flipped {
				continue
			}
			select {
			case o.changes <- change:
			default:
				// Only the events driven one at a time read this channel; a burst's
				// changes are read from the map.
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

// waitAll waits until every Foo of want shows its happy value, and returns when the last of
// them was seen changing to it. It gives up when p exits.
func (o *observer) waitAll(ctx context.Context, p runner, want map[types.NamespacedName]bool, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	for {
		var last time.Time
		wrong := 0
		o.mu.Lock()
		for key, happy := range want {
			state, known := o.happy[key]
			if !known || state.happy != happy {
				wrong++
			} else if state.seen.After(last) {
				last = state.seen
			}
		}
		o.mu.Unlock()
		if wrong == 0 {
			return last, nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("after %s, %d of %d Foos still show the wrong status", timeout, wrong, len(want))
		}
		select {
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		case <-p.Exited():
			return time.Time{}, fmt.Errorf("%s exited with %d of %d Foos still wrong", p.Name(), wrong, len(want))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// counts returns how many changes of status.happy, and of the status as a whole, the
// observer has seen since the last resetCounts.
func (o *observer) counts() (happyFlips, statusChanges int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.happyFlips, o.statusChanges
}

func (o *observer) resetCounts() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.happyFlips, o.statusChanges = 0, 0
	// Changes from before now are nobody's to wait for.
	for {
		select {
		case <-o.changes:
		default:
			return
		}
	}
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
		P50:  percentile(millis, 0.50),
		P90:  percentile(millis, 0.90),
		P99:  percentile(millis, 0.99),
		P999: percentile(millis, 0.999),
		Max:  percentile(millis, 1),
	}
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
