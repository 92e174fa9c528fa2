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
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	localprocess "github.com/example/foo-operator/hack/localcluster/process"
	"github.com/example/foo-operator/test/benchmark/report"
	"github.com/example/foo-operator/test/harness"
)

// TestBreakDownReadsTheManagersOwnLog runs the manager as the benchmark runs it, with the
// flags and at the verbosity of --breakdown, against the benchmark's control plane; drives
// the benchmark's events for one Foo, its friend pod created and then deleted; and breaks
// them down from the log the manager wrote. Where the unit tests of the breakdown read a
// log written by hand, this one fails when the manager's log no longer says what the
// breakdown looks for: a message reworded on one side, logged at another verbosity or
// without its pod or Foo, or time stamps the breakdown cannot read.
func TestBreakDownReadsTheManagersOwnLog(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	binary, err := harness.BuildManager(dir)
	if err != nil {
		t.Fatal(err)
	}
	tuning, err := deployedTuning(filepath.Join(harness.RepoRoot, "config", "manager", "manager.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	opts := options{
		implementations: []string{report.Ours},
		binaries:        map[string]string{report.Ours: binary},
		managerArgs:     tuning,
		crdDir:          filepath.Join(harness.RepoRoot, "config", "crd", "bases"),
		// The defaults of the benchmark's flags.
		breakdown:    true,
		eventTimeout: 30 * time.Second,
		eventGap:     20 * time.Millisecond,
	}
	w := workload{pods: 1, foos: 1, friends: 1, namespaces: 1}
	impls := newImplementations(opts, w.pods)
	impl := impls[0]
	c, err := startCluster(ctx, opts, w, impls, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.stop(); err != nil {
			t.Error(err)
		}
	})

	foo := w.foo(impl.index, 0)
	if err := c.createNamespace(ctx, foo.Namespace); err != nil {
		t.Fatal(err)
	}
	if err := createFoo(ctx, impl.foos, foo, w.friendOf(impl.index, 0)); err != nil {
		t.Fatal(err)
	}
	impl.expected[foo] = false
	if impl.obs, err = observe(ctx, impl.foos); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(impl.obs.stop)
	if impl.proc, err = impl.start(ctx, opts, c, filepath.Join(dir, report.Ours+".log")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(impl.proc.stop)
	if err := impl.proc.WaitReady(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	// The events start once the manager has written the Foo's first status, as the
	// benchmark's start once every Foo is right.
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		var current tutorialv1.Foo
		if err := impl.foos.Get(ctx, foo, &current); err != nil {
			return false, err
		}
		return meta.FindStatusCondition(current.Status.Conditions, tutorialv1.HappyCondition) != nil, nil
	})
	if err != nil {
		t.Fatalf("the manager wrote no status of %s: %v\n%s", foo, err, localprocess.Tail(impl.proc.LogHint(), 40))
	}

	round := []podEvent{{target: 0}, {target: 0, delete: true}}
	if err := driveRound(ctx, opts, c, impl, round); err != nil {
		t.Fatal(err)
	}
	if impl.result.Missed > 0 || len(impl.events) != len(round) {
		t.Fatalf("%d of %d events seen, %d missed", len(impl.events), len(round), impl.result.Missed)
	}

	// The log is complete once the manager has ended, as the benchmark reads it.
	impl.proc.stop()
	log, err := readLog(ctx, impl)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := syncedAt(ctx, impl); err != nil || !ok {
		t.Errorf("the time the manager's caches synced was not found in its log: %v", err)
	}
	for _, event := range impl.events {
		breakdown, ok := log.BreakDown(event)
		if !ok {
			t.Errorf("the event of pod %s (deletion: %t) was not matched with the lines of the manager's log", event.Pod, event.Deletion)
			continue
		}
		t.Logf("The event of pod %s (deletion: %t), in milliseconds: %v", event.Pod, event.Deletion, breakdown.Stages)
		// The manager's reconciles go through a work queue, so each starts after the pod
		// event that queued it; a queue of 0 is the floor's reading, of a log with no
		// reconcile of the Foo in it. The status PATCH takes time too.
		for _, stage := range []string{report.StageQueue, report.StageWrite} {
			if breakdown.Stages[stage] <= 0 {
				t.Errorf("the event of pod %s (deletion: %t) has no time in stage %q", event.Pod, event.Deletion, stage)
			}
		}
	}
	if t.Failed() {
		t.Logf("The manager's log:\n%s", localprocess.Tail(impl.proc.LogHint(), 60))
	}
}
