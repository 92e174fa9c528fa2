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
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/example/foo-operator/internal/controller"
	"github.com/example/foo-operator/test/benchmark/fooapi"
)

// The breakdown of an event splits its latency at the moments the implementation logs at
// V(2) (the manager and the floor log the same ones; the naive design logs none). The
// event's latency runs from the moment the pod's change was stored (the apiserver answered
// the benchmark's write) to the moment the benchmark saw the Foo change; the pod write
// before it is shown too, because the apiserver's admission of a pod creation sometimes
// waits on its own reads (see docs/performance.md):
//
//	sent -> answered      the pod write, before the event: the apiserver's answer to the
//	                      benchmark's create or delete
//	answered -> pod event the watch delivering the pod's change to the implementation (0
//	                      where the watch was faster than the benchmark's client)
//	pod event -> start    the work queue (the floor has none: 0)
//	start -> written      the reconcile, its status PATCH and the apiserver's answer
//	written -> seen       the Foo's watch event reaching the benchmark (0 where the watch
//	                      was faster than the writer's logging of the answer)
//
// All four come from the same clock: every process runs on this machine.
const (
	stagePodWrite = "pod write, before the event"
	stageDelivery = "pod watch delivery"
	stageQueue    = "work queue"
	stageWrite    = "reconcile + status PATCH"
	stageSeen     = "Foo watch to the benchmark"
)

var stages = []string{stagePodWrite, stageDelivery, stageQueue, stageWrite, stageSeen}

// EventBreakdown is one event's latency, split into the stages above, in milliseconds.
type EventBreakdown struct {
	Pod           string             `json:"pod"`
	Deletion      bool               `json:"deletion"`
	LatencyMillis float64            `json:"latencyMillis"`
	Stages        map[string]float64 `json:"stagesMillis"`
}

// logLine is what the breakdown reads from a JSON log line of the manager or the floor.
type logLine struct {
	at   time.Time
	msg  string
	pod  types.NamespacedName
	foo  types.NamespacedName
	fine bool // happy, on status lines
}

// explainSlowest splits the latency of the implementation's slowest 1% of events (at least
// one), and gives the median of every stage over all its events, from its log.
func explainSlowest(ctx context.Context, impl *implementation) error {
	if impl.name == naive || len(impl.events) == 0 {
		return nil
	}
	path, err := impl.proc.Log(ctx)
	if err != nil {
		return err
	}
	lines, err := readLog(path)
	if err != nil {
		return err
	}
	var all []EventBreakdown
	for _, event := range impl.events {
		if breakdown, ok := breakDown(event, lines); ok {
			all = append(all, breakdown)
		}
	}
	impl.result.BrokenDown = len(all)
	if len(all) == 0 {
		return fmt.Errorf("no event could be matched with the lines of %s: does it log at V(2)?", path)
	}
	impl.result.StageMediansMillis = map[string]float64{}
	for _, stage := range stages {
		values := make([]float64, len(all))
		for i, breakdown := range all {
			values[i] = breakdown.Stages[stage]
		}
		slices.Sort(values)
		impl.result.StageMediansMillis[stage] = percentile(values, 0.5)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].LatencyMillis > all[j].LatencyMillis })
	impl.result.Slowest = all[:max(1, len(all)/100)]
	return nil
}

// breakDown finds the moments of one event in the implementation's log lines: the first
// pod event for its pod after it was sent, the first reconcile of its Foo after that, and
// the first status write of its Foo with the new value after that.
func breakDown(event eventRecord, lines []logLine) (EventBreakdown, bool) {
	happy := !event.delete
	find := func(from time.Time, match func(logLine) bool) (time.Time, bool) {
		i := sort.Search(len(lines), func(i int) bool { return !lines[i].at.Before(from) })
		// The benchmark's watch may see a write before the writer has logged its answer.
		for ; i < len(lines) && !lines[i].at.After(event.seen.Add(time.Second)); i++ {
			if match(lines[i]) {
				return lines[i].at, true
			}
		}
		return time.Time{}, false
	}
	delivered, ok := find(event.sent, func(l logLine) bool { return l.msg == controller.LogPodEvent && l.pod == event.pod })
	if !ok {
		return EventBreakdown{}, false
	}
	started, ok := find(delivered, func(l logLine) bool { return l.msg == controller.LogReconciling && l.foo == event.foo })
	if !ok {
		// The floor writes straight from the watch.
		started = delivered
	}
	written, ok := find(started, func(l logLine) bool {
		return l.msg == controller.LogUpdatedStatus && l.foo == event.foo && l.fine == happy
	})
	if !ok {
		return EventBreakdown{}, false
	}
	millis := func(from, to time.Time) float64 { return math.Max(0, float64(to.Sub(from))/float64(time.Millisecond)) }
	return EventBreakdown{
		Pod:           event.pod.String(),
		Deletion:      event.delete,
		LatencyMillis: millis(event.answered, event.seen),
		Stages: map[string]float64{
			stagePodWrite: millis(event.sent, event.answered),
			stageDelivery: millis(event.answered, delivered),
			stageQueue:    millis(delivered, started),
			stageWrite:    millis(started, written),
			stageSeen:     millis(written, event.seen),
		},
	}, true
}

// controllerRuntimeWorkersStarted is the message controller-runtime logs when a controller
// starts its workers, which it does once the caches have synced. It is controller-runtime's
// own, so it is named here rather than in internal/controller.
const controllerRuntimeWorkersStarted = "Starting workers"

// syncedAt reads from the implementation's log when it knew every pod and Foo: the first
// "Starting workers" of ours (controller-runtime starts its workers once the caches have
// synced), "Listed pods and Foos" of the floor. The naive design logs neither.
func syncedAt(ctx context.Context, impl *implementation) (time.Time, bool, error) {
	message := map[string]string{ours: controllerRuntimeWorkersStarted, floor: fooapi.LogFloorListed}[impl.name]
	if message == "" {
		return time.Time{}, false, nil
	}
	path, err := impl.proc.Log(ctx)
	if err != nil {
		return time.Time{}, false, err
	}
	lines, err := readLog(path)
	if err != nil {
		return time.Time{}, false, err
	}
	for _, line := range lines {
		if line.msg == message {
			return line.at, true, nil
		}
	}
	return time.Time{}, false, fmt.Errorf("%s never logged %q", path, message)
}

// readLog reads the lines of a zap JSON log that the breakdown uses, in order of time.
func readLog(path string) ([]logLine, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = file.Close() }()
	type ref struct{ Name, Namespace string }
	var lines []logLine
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for scanner.Scan() {
		var entry struct {
			TS    json.RawMessage `json:"ts"`
			Msg   string          `json:"msg"`
			Pod   *ref            `json:"pod"`
			Foo   *ref            `json:"foo"`
			Kind  *ref            `json:"Foo"` // controller-runtime names the reconciled object by its kind
			Happy bool            `json:"happy"`
		}
		if json.Unmarshal(scanner.Bytes(), &entry) != nil {
			continue
		}
		at, ok := parseLogTime(entry.TS)
		if !ok {
			continue
		}
		line := logLine{at: at, msg: entry.Msg, fine: entry.Happy}
		if entry.Pod != nil {
			line.pod = types.NamespacedName{Namespace: entry.Pod.Namespace, Name: entry.Pod.Name}
		}
		for _, foo := range []*ref{entry.Foo, entry.Kind} {
			if foo != nil {
				line.foo = types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}
			}
		}
		lines = append(lines, line)
	}
	slices.SortStableFunc(lines, func(a, b logLine) int { return a.at.Compare(b.at) })
	return lines, scanner.Err()
}

// parseLogTime reads zap's time stamp as the benchmark asks for it (RFC 3339 with
// nanoseconds), or as seconds since the epoch, zap's production default.
func parseLogTime(raw json.RawMessage) (time.Time, bool) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		at, err := time.Parse(time.RFC3339Nano, text)
		return at, err == nil
	}
	var seconds float64
	if json.Unmarshal(raw, &seconds) == nil && seconds > 0 {
		return time.Unix(0, int64(seconds*1e6)*1e3), true
	}
	return time.Time{}, false
}

// bootstrapInterval returns a 95% interval of percentile q of sorted, from 2000 resamples
// with a fixed seed: how far the figure could move with another draw of as many events.
func bootstrapInterval(sorted []float64, q float64) [2]float64 {
	if len(sorted) == 0 {
		return [2]float64{}
	}
	random := rand.New(rand.NewPCG(1, 2))
	estimates := make([]float64, 2000)
	sample := make([]float64, len(sorted))
	for i := range estimates {
		for j := range sample {
			sample[j] = sorted[random.IntN(len(sorted))]
		}
		slices.Sort(sample)
		estimates[i] = percentile(sample, q)
	}
	slices.Sort(estimates)
	return [2]float64{percentile(estimates, 0.025), percentile(estimates, 0.975)}
}
