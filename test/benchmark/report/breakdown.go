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
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/example/foo-operator/internal/controller"
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
// All four come from the same clock: every process runs on this machine. The names of the
// stages are the keys of EventBreakdown.Stages and of Result.StageMediansMillis.
const (
	StagePodWrite = "pod write, before the event"
	StageDelivery = "pod watch delivery"
	StageQueue    = "work queue"
	StageWrite    = "reconcile + status PATCH"
	StageSeen     = "Foo watch to the benchmark"
)

// stages are the stages in the order they happen, which is the order of the columns.
var stages = []string{StagePodWrite, StageDelivery, StageQueue, StageWrite, StageSeen}

// Event is one pod event the benchmark drove for an implementation: the pod it created or
// deleted, the Foo that names it, and when its effect was seen.
type Event struct {
	Pod, Foo types.NamespacedName
	Deletion bool
	// Sent is when the benchmark sent the pod's create or delete, Answered when the
	// apiserver answered it, Seen when the benchmark's watch saw the Foo change.
	Sent, Answered, Seen time.Time
}

// EventBreakdown is one event's latency, split into the stages above, in milliseconds.
type EventBreakdown struct {
	Pod           string             `json:"pod"`
	Deletion      bool               `json:"deletion"`
	LatencyMillis float64            `json:"latencyMillis"`
	Stages        map[string]float64 `json:"stagesMillis"`
}

// Log is what the breakdown reads from the zap JSON log of the manager or the floor: the
// moments it logged, in order of time.
type Log struct {
	path  string
	lines []logLine
}

// logLine is one moment of a Log.
type logLine struct {
	at   time.Time
	msg  string
	pod  types.NamespacedName
	foo  types.NamespacedName
	fine bool // happy, on status lines
}

// ExplainSlowest splits the latency of the slowest 1% of events (at least one) at the
// moments of log, and gives the median of every stage over all the events it could match.
func (r *Result) ExplainSlowest(log *Log, events []Event) error {
	if len(events) == 0 {
		return nil
	}
	var all []EventBreakdown
	for _, event := range events {
		if breakdown, ok := log.BreakDown(event); ok {
			all = append(all, breakdown)
		}
	}
	r.BrokenDown = len(all)
	if len(all) == 0 {
		return fmt.Errorf("no event could be matched with the lines of %s: does it log at V(2)?", log.path)
	}
	r.StageMediansMillis = map[string]float64{}
	for _, stage := range stages {
		values := make([]float64, len(all))
		for i, breakdown := range all {
			values[i] = breakdown.Stages[stage]
		}
		slices.Sort(values)
		r.StageMediansMillis[stage] = percentile(values, 0.5)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].LatencyMillis > all[j].LatencyMillis })
	r.Slowest = all[:max(1, len(all)/100)]
	return nil
}

// BreakDown finds the moments of one event in the log: the first pod event for its pod
// after it was sent, the first reconcile of its Foo after that, and the first status write
// of its Foo with the new value after that.
func (l *Log) BreakDown(event Event) (EventBreakdown, bool) {
	happy := !event.Deletion
	find := func(from time.Time, match func(logLine) bool) (time.Time, bool) {
		i := sort.Search(len(l.lines), func(i int) bool { return !l.lines[i].at.Before(from) })
		// The benchmark's watch may see a write before the writer has logged its answer.
		for ; i < len(l.lines) && !l.lines[i].at.After(event.Seen.Add(time.Second)); i++ {
			if match(l.lines[i]) {
				return l.lines[i].at, true
			}
		}
		return time.Time{}, false
	}
	delivered, ok := find(event.Sent, func(line logLine) bool { return line.msg == controller.LogPodEvent && line.pod == event.Pod })
	if !ok {
		return EventBreakdown{}, false
	}
	started, ok := find(delivered, func(line logLine) bool { return line.msg == controller.LogReconciling && line.foo == event.Foo })
	if !ok {
		// The floor writes straight from the watch.
		started = delivered
	}
	written, ok := find(started, func(line logLine) bool {
		return line.msg == controller.LogUpdatedStatus && line.foo == event.Foo && line.fine == happy
	})
	if !ok {
		return EventBreakdown{}, false
	}
	millis := func(from, to time.Time) float64 { return math.Max(0, float64(to.Sub(from))/float64(time.Millisecond)) }
	return EventBreakdown{
		Pod:           event.Pod.String(),
		Deletion:      event.Deletion,
		LatencyMillis: millis(event.Answered, event.Seen),
		Stages: map[string]float64{
			StagePodWrite: millis(event.Sent, event.Answered),
			StageDelivery: millis(event.Answered, delivered),
			StageQueue:    millis(delivered, started),
			StageWrite:    millis(started, written),
			StageSeen:     millis(written, event.Seen),
		},
	}, true
}

// FirstLogged returns when message was first logged, such as the message that says the
// implementation knows every pod and Foo.
func (l *Log) FirstLogged(message string) (time.Time, bool) {
	for _, line := range l.lines {
		if line.msg == message {
			return line.at, true
		}
	}
	return time.Time{}, false
}

// ReadLog reads the lines of a zap JSON log that the breakdown uses, in order of time.
func ReadLog(path string) (*Log, error) {
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
	return &Log{path: path, lines: lines}, scanner.Err()
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
