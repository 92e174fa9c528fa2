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
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// A log as the manager writes it at V(2), for one pod deletion: the pod event, the
// reconcile, and its status write, among lines about other objects.
const managerLog = `{"level":"info","ts":"1970-01-01T00:16:40.0001Z","msg":"Starting workers"}
{"level":"debug","ts":1000.002000,"msg":"Pod event for Foos","pod":{"name":"pod-00001","namespace":"bench-01"},"foos":1}
{"level":"debug","ts":1000.002500,"msg":"Pod event for Foos","pod":{"name":"pod-00007","namespace":"bench-07"},"foos":1}
{"level":"debug","ts":1000.003000,"msg":"Reconciling","Foo":{"name":"foo-00001","namespace":"bench-01"},"namespace":"bench-01","name":"foo-00001"}
{"level":"debug","ts":1000.004000,"msg":"Updated status","Foo":{"name":"foo-00001","namespace":"bench-01"},"friend":"pod-00001","happy":true}
{"level":"debug","ts":1000.007000,"msg":"Updated status","Foo":{"name":"foo-00001","namespace":"bench-01"},"friend":"pod-00001","happy":false}
{"level":"debug","ts":1000.007500,"msg":"Reconciled","Foo":{"name":"foo-00001","namespace":"bench-01"}}
not json
`

// writeLog writes content as a log file and reads it as the breakdown does.
func writeLog(t *testing.T, content string) *Log {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ours.log")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

func TestBreakDownSplitsAnEventAtTheMomentsTheManagerLogs(t *testing.T) {
	log := writeLog(t, managerLog)
	at := func(seconds float64) time.Time { return time.Unix(0, int64(seconds*1e6)*1e3) }
	event := Event{
		Pod:      types.NamespacedName{Namespace: "bench-01", Name: "pod-00001"},
		Foo:      types.NamespacedName{Namespace: "bench-01", Name: "foo-00001"},
		Deletion: true,
		Sent:     at(1000.001), Answered: at(1000.0015), Seen: at(1000.009),
	}
	breakdown, ok := log.BreakDown(event)
	if !ok {
		t.Fatalf("the event was not matched with the log's lines %+v", log.lines)
	}
	want := map[string]float64{StagePodWrite: 0.5, StageDelivery: 0.5, StageQueue: 1, StageWrite: 4, StageSeen: 2}
	for stage, millis := range want {
		if got := breakdown.Stages[stage]; got < millis-0.01 || got > millis+0.01 {
			t.Errorf("stage %q took %.3fms, want %.1fms (the write that counts is the one with happy=false)", stage, got, millis)
		}
	}
	if breakdown.LatencyMillis < 7.49 || breakdown.LatencyMillis > 7.51 {
		t.Errorf("latency %.3fms, want 7.5ms: from the pod write's answer, not from its sending", breakdown.LatencyMillis)
	}

	event.Pod.Name = "pod-00002"
	if _, ok := log.BreakDown(event); ok {
		t.Error("an event whose pod the log never names was matched")
	}
}

func TestFirstLoggedReadsRFC3339TimeStamps(t *testing.T) {
	log := writeLog(t, managerLog)
	started, ok := log.FirstLogged("Starting workers")
	if want := time.Unix(1000, 100_000); !ok || !started.Equal(want) {
		t.Errorf("Starting workers logged at %v (found: %t), want %v", started, ok, want)
	}
	if _, ok := log.FirstLogged("Listed pods and Foos"); ok {
		t.Error("a message the log does not hold was found")
	}
}

// A log of three events as the floor or the manager writes it, with RFC 3339 time stamps to
// the millisecond: a creation of pod-a (every stage 1 ms, its write 2 ms), a deletion of
// pod-b (the slowest), and a creation of pod-c with no reconcile line, as the floor logs.
const threeEventsLog = `{"ts":"1970-01-01T00:00:10.002Z","msg":"Pod event for Foos","pod":{"name":"pod-a","namespace":"ns"}}
{"ts":"1970-01-01T00:00:10.003Z","msg":"Reconciling","Foo":{"name":"foo-a","namespace":"ns"}}
{"ts":"1970-01-01T00:00:10.005Z","msg":"Updated status","Foo":{"name":"foo-a","namespace":"ns"},"happy":true}
{"ts":"1970-01-01T00:00:20.004Z","msg":"Pod event for Foos","pod":{"name":"pod-b","namespace":"ns"}}
{"ts":"1970-01-01T00:00:20.010Z","msg":"Reconciling","Foo":{"name":"foo-b","namespace":"ns"}}
{"ts":"1970-01-01T00:00:20.013Z","msg":"Updated status","Foo":{"name":"foo-b","namespace":"ns"},"happy":false}
{"ts":"1970-01-01T00:00:30.003Z","msg":"Pod event for Foos","pod":{"name":"pod-c","namespace":"ns"}}
{"ts":"1970-01-01T00:00:30.004Z","msg":"Updated status","foo":{"name":"foo-c","namespace":"ns"},"happy":true}
`

// threeEvents are the events of threeEventsLog, and one (pod-d) the log never names.
func threeEvents() []Event {
	// Each pod write is sent at the second's start.
	event := func(name string, deletion bool, second int, answered, seen int) Event {
		at := func(millis int) time.Time { return time.Unix(int64(second), int64(millis)*int64(time.Millisecond)) }
		return Event{
			Pod: types.NamespacedName{Namespace: "ns", Name: "pod-" + name}, Foo: types.NamespacedName{Namespace: "ns", Name: "foo-" + name},
			Deletion: deletion, Sent: at(0), Answered: at(answered), Seen: at(seen),
		}
	}
	return []Event{event("a", false, 10, 1, 6), event("b", true, 20, 2, 20), event("c", false, 30, 3, 9), event("d", true, 40, 1, 5)}
}

func TestExplainSlowestKeepsTheSlowestEventAndEveryStagesMedian(t *testing.T) {
	log := writeLog(t, threeEventsLog)
	var result Result
	if err := result.ExplainSlowest(log, threeEvents()); err != nil {
		t.Fatal(err)
	}
	if result.BrokenDown != 3 {
		t.Errorf("%d events broken down, want 3: pod-d is not in the log", result.BrokenDown)
	}
	// The stages of a, b and c: pod write 1, 2, 3; delivery 1, 2, 0; queue 1, 6, 0 (no
	// reconcile line); write 2, 3, 1; seen 1, 7, 5.
	wantMedians := map[string]float64{StagePodWrite: 2, StageDelivery: 1, StageQueue: 1, StageWrite: 2, StageSeen: 5}
	if !maps.Equal(result.StageMediansMillis, wantMedians) {
		t.Errorf("stage medians %v, want %v", result.StageMediansMillis, wantMedians)
	}
	// Of 3 events, the slowest 1% is the slowest one.
	wantSlowest := EventBreakdown{
		Pod: "ns/pod-b", Deletion: true, LatencyMillis: 18,
		Stages: map[string]float64{StagePodWrite: 2, StageDelivery: 2, StageQueue: 6, StageWrite: 3, StageSeen: 7},
	}
	if !reflect.DeepEqual(result.Slowest, []EventBreakdown{wantSlowest}) {
		t.Errorf("slowest %+v, want only %+v", result.Slowest, wantSlowest)
	}
}

func TestExplainSlowestFailsWhenNoEventIsInTheLog(t *testing.T) {
	log := writeLog(t, threeEventsLog)
	var result Result
	err := result.ExplainSlowest(log, threeEvents()[3:])
	if err == nil || !strings.Contains(err.Error(), "does it log at V(2)?") {
		t.Errorf("error %v, want one that asks whether the implementation logs at V(2)", err)
	}
	if err := result.ExplainSlowest(log, nil); err != nil || result.Slowest != nil {
		t.Errorf("with no events: error %v, slowest %v; want neither", err, result.Slowest)
	}
}
