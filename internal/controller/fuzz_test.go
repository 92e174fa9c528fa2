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

package controller

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/internal/status"
)

// conditionReasonPattern is the pattern the CRD enforces on a condition's reason: a reason
// outside it would make every status write of the operator fail.
var conditionReasonPattern = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

// FuzzFooStatus checks the properties the controller relies on, for any Foo and any friend
// pod: the index key is spec.name, the computed status tells the truth about the friend, it
// is stable (recomputing it from itself changes nothing, so an unchanged world is never
// written again), and an Event is due exactly when the Happy condition flips.
//
// `go test` runs the seeds below; `go test -fuzz=FuzzFooStatus ./internal/controller` explores further.
func FuzzFooStatus(f *testing.F) {
	f.Add("ns", "foo", "jack", int64(1), true, false, false, "", false, int64(0))
	f.Add("ns", "foo", "jack", int64(3), true, true, true, tutorialv1.FriendFoundReason, true, int64(1))
	f.Add("team-a", "foo-02", "web-0.backup", int64(7), false, false, true, tutorialv1.FriendNotFoundReason, false, int64(5))
	f.Add("ns", "foo", "", int64(0), false, false, false, "", false, int64(0))
	f.Add("ns", "foo", strings.Repeat("a", 253), int64(1<<62), true, true, true, "Forged", true, int64(-1))
	f.Add("", "", "jäck \"quoted\"\n", int64(-5), true, false, true, "", true, int64(9))

	earlier := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(earlier.Add(time.Hour))
	later := metav1.NewTime(now.Add(time.Hour))

	f.Fuzz(func(t *testing.T, namespace, name, friend string, generation int64,
		podExists, podTerminating, hadHappy bool, previousReason string, previouslyHappy bool, forgedGeneration int64) {
		foo := &tutorialv1.Foo{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Generation: generation},
			Spec:       tutorialv1.FooSpec{Name: friend},
			Status:     tutorialv1.FooStatus{Happy: !previouslyHappy, ObservedGeneration: forgedGeneration},
		}
		if hadHappy {
			foo.Status.Conditions = []metav1.Condition{{
				Type: tutorialv1.HappyCondition, Status: conditionStatus(previouslyHappy), Reason: previousReason,
				LastTransitionTime: earlier,
			}}
		}
		original := foo.DeepCopy()

		keys := friendName(foo)
		if friend == "" && keys != nil || friend != "" && !equality.Semantic.DeepEqual(keys, []string{friend}) {
			t.Fatalf("friendName(spec.name %q) = %q, want the name itself, or nothing for an empty name", friend, keys)
		}
		if keys := friendName(podMetadata(namespace, friend)); keys != nil {
			t.Fatalf("friendName of a pod = %q, want nothing: only Foos are indexed", keys)
		}

		var pod *metav1.PartialObjectMetadata
		if podExists {
			pod = podMetadata(namespace, friend)
			if podTerminating {
				pod.DeletionTimestamp = &earlier
			}
		}
		wantHappy := podExists && !podTerminating

		desired := status.Desired(foo, pod, now)

		if !equality.Semantic.DeepEqual(foo, original) {
			t.Fatalf("status.Desired modified the Foo")
		}
		if desired.Happy != wantHappy {
			t.Fatalf("happy = %v for pod exists=%v terminating=%v", desired.Happy, podExists, podTerminating)
		}
		if desired.ObservedGeneration != generation {
			t.Fatalf("observedGeneration = %d, want the Foo's generation %d", desired.ObservedGeneration, generation)
		}
		if wantHappy != (desired.Friend != nil) || wantHappy && (desired.Friend.Name != pod.Name || desired.Friend.UID != pod.UID) {
			t.Fatalf("friend = %+v, want the pod's name and UID exactly while happy", desired.Friend)
		}
		if len(desired.Conditions) != 1 {
			t.Fatalf("want only the Happy condition, got %+v", desired.Conditions)
		}
		happy := desired.Conditions[0]
		if happy.Type != tutorialv1.HappyCondition || happy.Status != conditionStatus(wantHappy) ||
			happy.ObservedGeneration != generation {
			t.Fatalf("Happy condition %+v does not match happy=%v at generation %d", happy, wantHappy, generation)
		}
		if wantReason := expectedReason(podExists, podTerminating); happy.Reason != wantReason {
			t.Fatalf("reason = %q, want %q", happy.Reason, wantReason)
		}
		if !conditionReasonPattern.MatchString(happy.Reason) {
			t.Fatalf("reason %q would be refused by the apiserver", happy.Reason)
		}
		if !strings.Contains(happy.Message, fmt.Sprintf("%q", friend)) {
			t.Fatalf("message %q does not name the friend %q", happy.Message, friend)
		}
		wantSince := now
		if hadHappy && previouslyHappy == wantHappy {
			wantSince = earlier
		}
		if !happy.LastTransitionTime.Equal(&wantSince) {
			t.Fatalf("lastTransitionTime = %v, want %v", happy.LastTransitionTime, wantSince)
		}

		settled := foo.DeepCopy()
		settled.Status = desired
		if again := status.Desired(settled, pod, later); !equality.Semantic.DeepEqual(again, desired) {
			t.Fatalf("status is not stable: %+v, then %+v", desired, again)
		}

		flipped := meta.IsStatusConditionTrue(foo.Status.Conditions, tutorialv1.HappyCondition) != wantHappy
		if got := status.HappyTransition(foo.Status, desired); got != flipped {
			t.Fatalf("status.HappyTransition = %v, want %v", got, flipped)
		}
		if status.HappyTransition(desired, desired) {
			t.Fatalf("an unchanged status is reported as a transition")
		}
	})
}

func conditionStatus(happy bool) metav1.ConditionStatus {
	if happy {
		return metav1.ConditionTrue
	}
	return metav1.ConditionFalse
}

func expectedReason(podExists, podTerminating bool) string {
	switch {
	case !podExists:
		return tutorialv1.FriendNotFoundReason
	case podTerminating:
		return tutorialv1.FriendTerminatingReason
	default:
		return tutorialv1.FriendFoundReason
	}
}
