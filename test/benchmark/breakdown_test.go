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
	"os"
	"path/filepath"
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

func TestBreakDownSplitsAnEventAtTheMomentsTheManagerLogs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ours.log")
	if err := os.WriteFile(path, []byte(managerLog), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := readLog(path)
	if err != nil {
		t.Fatal(err)
	}
	at := func(seconds float64) time.Time { return time.Unix(0, int64(seconds*1e6)*1e3) }
	event := eventRecord{
		pod:    types.NamespacedName{Namespace: "bench-01", Name: "pod-00001"},
		foo:    types.NamespacedName{Namespace: "bench-01", Name: "foo-00001"},
		delete: true,
		sent:   at(1000.001), answered: at(1000.0015), seen: at(1000.009),
	}
	breakdown, ok := breakDown(event, lines)
	if !ok {
		t.Fatalf("the event was not matched with the log's lines %+v", lines)
	}
	want := map[string]float64{stagePodWrite: 0.5, stageDelivery: 0.5, stageQueue: 1, stageWrite: 4, stageSeen: 2}
	for stage, millis := range want {
		if got := breakdown.Stages[stage]; got < millis-0.01 || got > millis+0.01 {
			t.Errorf("stage %q took %.3fms, want %.1fms (the write that counts is the one with happy=false)", stage, got, millis)
		}
	}
	if breakdown.LatencyMillis < 7.49 || breakdown.LatencyMillis > 7.51 {
		t.Errorf("latency %.3fms, want 7.5ms: from the pod write's answer, not from its sending", breakdown.LatencyMillis)
	}

	event.pod.Name = "pod-00002"
	if _, ok := breakDown(event, lines); ok {
		t.Error("an event whose pod the log never names was matched")
	}
}

func TestEventRoundsLeaveThePodsAsTheyWere(t *testing.T) {
	rounds := eventRounds(50, 12)
	total := 0
	for i, round := range rounds {
		deleted := map[int]bool{}
		for _, event := range round {
			if event.delete {
				deleted[event.target] = true
			} else if !deleted[event.target] {
				t.Fatalf("round %d creates the friend of Foo %d, which it did not delete", i, event.target)
			} else {
				delete(deleted, event.target)
			}
		}
		if len(deleted) != 0 {
			t.Errorf("round %d leaves the friends of %v deleted", i, deleted)
		}
		total += len(round)
	}
	if total != 50 {
		t.Errorf("%d events planned, want 50", total)
	}
}

func TestBootstrapIntervalHoldsThePercentile(t *testing.T) {
	sorted := make([]float64, 1000)
	for i := range sorted {
		sorted[i] = float64(i + 1)
	}
	interval := bootstrapInterval(sorted, 0.99)
	if p99 := percentile(sorted, 0.99); interval[0] > p99 || interval[1] < p99 || interval[0] >= interval[1] {
		t.Errorf("interval %v does not hold the p99 %v", interval, p99)
	}
}
