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

package status

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

func TestObserveFriend(t *testing.T) {
	deleting := metav1.Now()
	tests := []struct {
		name string
		pod  *metav1.PartialObjectMetadata
		want friendState
	}{
		{name: "no pod", pod: nil, want: friendAbsent},
		{name: "pod exists", pod: &metav1.PartialObjectMetadata{}, want: friendPresent},
		{
			name: "pod is being deleted",
			pod:  &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{DeletionTimestamp: &deleting}},
			want: friendTerminating,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(observeFriend(tt.pod)).To(Equal(tt.want))
		})
	}
}

func TestDesired(t *testing.T) {
	earlier := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := metav1.NewTime(earlier.Add(time.Hour))
	jack := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "jack", UID: "uid-jack"}}
	terminatingJack := jack.DeepCopy()
	terminatingJack.DeletionTimestamp = &earlier
	happyCondition := func(status metav1.ConditionStatus, reason string, since metav1.Time) metav1.Condition {
		return metav1.Condition{
			Type: tutorialv1.HappyCondition, Status: status, Reason: reason, ObservedGeneration: 1,
			Message: "from an earlier reconcile", LastTransitionTime: since,
		}
	}

	tests := []struct {
		name        string
		conditions  []metav1.Condition
		friend      *metav1.PartialObjectMetadata
		wantHappy   bool
		wantStatus  metav1.ConditionStatus
		wantReason  string
		wantMessage string
		wantSince   metav1.Time
	}{
		{
			name: "first reconcile, friend present", friend: jack,
			wantHappy: true, wantStatus: metav1.ConditionTrue, wantReason: tutorialv1.FriendFoundReason,
			wantMessage: `Pod "jack" exists in namespace "ns"`, wantSince: now,
		},
		{
			name: "first reconcile, no friend", friend: nil,
			wantStatus: metav1.ConditionFalse, wantReason: tutorialv1.FriendNotFoundReason,
			wantMessage: `No pod named "jack" in namespace "ns"`, wantSince: now,
		},
		{
			name: "friend terminating", friend: terminatingJack,
			conditions: []metav1.Condition{happyCondition(metav1.ConditionTrue, tutorialv1.FriendFoundReason, earlier)},
			wantStatus: metav1.ConditionFalse, wantReason: tutorialv1.FriendTerminatingReason,
			wantMessage: `Pod "jack" in namespace "ns" is being deleted`, wantSince: now,
		},
		{
			name: "still happy: the transition time stays", friend: jack,
			conditions: []metav1.Condition{happyCondition(metav1.ConditionTrue, tutorialv1.FriendFoundReason, earlier)},
			wantHappy:  true, wantStatus: metav1.ConditionTrue, wantReason: tutorialv1.FriendFoundReason,
			wantMessage: `Pod "jack" exists in namespace "ns"`, wantSince: earlier,
		},
		{
			name: "unhappy for another reason: the transition time stays", friend: nil,
			conditions: []metav1.Condition{happyCondition(metav1.ConditionFalse, tutorialv1.FriendTerminatingReason, earlier)},
			wantStatus: metav1.ConditionFalse, wantReason: tutorialv1.FriendNotFoundReason,
			wantMessage: `No pod named "jack" in namespace "ns"`, wantSince: earlier,
		},
		{
			name: "conditions the operator does not own are dropped", friend: jack,
			conditions: []metav1.Condition{
				{Type: "Forged", Status: metav1.ConditionTrue, Reason: "Tampered", LastTransitionTime: earlier},
				happyCondition(metav1.ConditionFalse, tutorialv1.FriendNotFoundReason, earlier),
			},
			wantHappy: true, wantStatus: metav1.ConditionTrue, wantReason: tutorialv1.FriendFoundReason,
			wantMessage: `Pod "jack" exists in namespace "ns"`, wantSince: now,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			foo := &tutorialv1.Foo{
				ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "foo", Generation: 3},
				Spec:       tutorialv1.FooSpec{Name: "jack"},
				// A forged happy flag must not leak into the result.
				Status: tutorialv1.FooStatus{Happy: !tt.wantHappy, ObservedGeneration: 1, Conditions: tt.conditions},
			}
			original := foo.DeepCopy()

			got := Desired(foo, tt.friend, now)

			g.Expect(got.Happy).To(Equal(tt.wantHappy))
			g.Expect(got.ObservedGeneration).To(Equal(int64(3)))
			g.Expect(got.Conditions).To(HaveLen(1))
			condition := got.Conditions[0]
			g.Expect(condition.Type).To(Equal(tutorialv1.HappyCondition))
			g.Expect(condition.Status).To(Equal(tt.wantStatus))
			g.Expect(condition.Reason).To(Equal(tt.wantReason))
			g.Expect(condition.Message).To(Equal(tt.wantMessage))
			g.Expect(condition.ObservedGeneration).To(Equal(int64(3)))
			g.Expect(condition.LastTransitionTime).To(Equal(tt.wantSince))
			if tt.wantHappy {
				g.Expect(got.Friend).To(Equal(&tutorialv1.FriendReference{Name: "jack", UID: "uid-jack"}))
			} else {
				g.Expect(got.Friend).To(BeNil(), "an unhappy Foo names no friend")
			}
			g.Expect(foo).To(Equal(original), "Desired must not modify the Foo")
		})
	}
}

func TestDesiredIsStable(t *testing.T) {
	foo := &tutorialv1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "foo", Generation: 1},
		Spec:       tutorialv1.FooSpec{Name: "jack"},
	}
	jack := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "jack", UID: "uid-jack"}}
	foo.Status = Desired(foo, jack, metav1.Now().Rfc3339Copy())

	later := metav1.NewTime(foo.Status.Conditions[0].LastTransitionTime.Add(time.Minute))
	NewWithT(t).Expect(Desired(foo, jack, later)).To(Equal(foo.Status),
		"an unchanged world must give an unchanged status, or every reconcile would write")
}

func TestHappyTransition(t *testing.T) {
	status := func(conditions ...metav1.Condition) tutorialv1.FooStatus {
		return tutorialv1.FooStatus{Conditions: conditions}
	}
	happy := metav1.Condition{Type: tutorialv1.HappyCondition, Status: metav1.ConditionTrue}
	unhappy := metav1.Condition{Type: tutorialv1.HappyCondition, Status: metav1.ConditionFalse}

	tests := []struct {
		name          string
		before, after tutorialv1.FooStatus
		want          bool
	}{
		{name: "new Foo finds its friend", before: status(), after: status(happy), want: true},
		{name: "new Foo without friend", before: status(), after: status(unhappy), want: false},
		{name: "friend goes", before: status(happy), after: status(unhappy), want: true},
		{name: "friend comes", before: status(unhappy), after: status(happy), want: true},
		{name: "still happy", before: status(happy), after: status(happy), want: false},
		{name: "still unhappy", before: status(unhappy), after: status(unhappy), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(HappyTransition(tt.before, tt.after)).To(Equal(tt.want))
		})
	}
}

func TestMergePatch(t *testing.T) {
	g := NewWithT(t)
	before := tutorialv1.FooStatus{Happy: true, ObservedGeneration: 1, Friend: &tutorialv1.FriendReference{Name: "jack", UID: "uid-jack"}}
	after := tutorialv1.FooStatus{Happy: false, ObservedGeneration: 2}

	patch, err := MergePatch("42", before, after)

	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(patch).To(MatchJSON(`{
		"metadata": {"resourceVersion": "42"},
		"status": {"happy": false, "observedGeneration": 2, "friend": null}
	}`), "happy: false is written, the friend removed, and the patch bound to the version it was computed from")
}
