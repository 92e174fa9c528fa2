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

// This file observes the Foos and the apiserver: when each Foo changed, and how many status
// writes the apiserver served.

package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// statusWrites returns how many writes of the status subresource of the Foos of group the
// apiserver has served, no-op and rejected writes included, and how many of them it
// rejected for a conflict, from its apiserver_request_total metric.
func (c *cluster) statusWrites(ctx context.Context, group string) (writes, conflicts float64, err error) {
	clientset, err := kubernetes.NewForConfig(c.config)
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
