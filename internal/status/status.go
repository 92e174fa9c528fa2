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

// Package status computes a Foo's status from what was observed of its friend pod, and the
// patch that writes it. It is pure: no client, no clock of its own. The controller and the
// benchmark's floor both write their statuses with it, so that they write the same bytes.
package status

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// friendState is what the operator observed of a Foo's friend pod.
type friendState int

const (
	friendAbsent friendState = iota
	friendPresent
	friendTerminating
)

// observeFriend tells the state of a friend pod from its metadata; nil means no such pod.
func observeFriend(pod *metav1.PartialObjectMetadata) friendState {
	switch {
	case pod == nil:
		return friendAbsent
	case pod.DeletionTimestamp != nil:
		return friendTerminating
	default:
		return friendPresent
	}
}

// Desired computes the status a Foo should have, given the metadata of the pod named
// by its spec.name (nil if there is none). It is recomputed from the world every time; the
// existing conditions are consulted only so that lastTransitionTime stays put while the
// Happy condition does not change.
func Desired(foo *tutorialv1.Foo, pod *metav1.PartialObjectMetadata, now metav1.Time) tutorialv1.FooStatus {
	friend := observeFriend(pod)
	happy := friend == friendPresent
	condition := metav1.Condition{
		Type:               tutorialv1.HappyCondition,
		Status:             metav1.ConditionFalse,
		ObservedGeneration: foo.Generation,
		LastTransitionTime: now,
	}
	switch friend {
	case friendPresent:
		condition.Status = metav1.ConditionTrue
		condition.Reason = tutorialv1.FriendFoundReason
		condition.Message = fmt.Sprintf("Pod %q exists in namespace %q", foo.Spec.Name, foo.Namespace)
	case friendTerminating:
		condition.Reason = tutorialv1.FriendTerminatingReason
		condition.Message = fmt.Sprintf("Pod %q in namespace %q is being deleted", foo.Spec.Name, foo.Namespace)
	default:
		condition.Reason = tutorialv1.FriendNotFoundReason
		condition.Message = fmt.Sprintf("No pod named %q in namespace %q", foo.Spec.Name, foo.Namespace)
	}

	// Only the Happy condition is carried over, and only for its lastTransitionTime: every
	// other field is overwritten below, and conditions this operator does not own are dropped.
	var conditions []metav1.Condition
	if previous := meta.FindStatusCondition(foo.Status.Conditions, tutorialv1.HappyCondition); previous != nil {
		conditions = append(conditions, *previous)
	}
	meta.SetStatusCondition(&conditions, condition)

	status := tutorialv1.FooStatus{
		Happy:              happy,
		ObservedGeneration: foo.Generation,
		Conditions:         conditions,
	}
	if happy {
		status.Friend = &tutorialv1.FriendReference{Name: pod.Name, UID: pod.UID}
	}
	return status
}

// HappyTransition reports whether the Happy condition changed its status between two
// statuses, treating a missing condition as not happy.
func HappyTransition(before, after tutorialv1.FooStatus) bool {
	return meta.IsStatusConditionTrue(before.Conditions, tutorialv1.HappyCondition) !=
		meta.IsStatusConditionTrue(after.Conditions, tutorialv1.HappyCondition)
}

// MergePatch builds a JSON merge patch that turns status before into status after on
// the object at resourceVersion. It sends every field of after, rather than a diff, so that
// fields holding their zero value (happy: false) are written even where the stored object
// lacks them, and it sets to null every field of before that after omits, which is how a
// merge patch removes a field.
func MergePatch(resourceVersion string, before, after tutorialv1.FooStatus) ([]byte, error) {
	status, err := jsonFields(after)
	if err != nil {
		return nil, err
	}
	previous, err := jsonFields(before)
	if err != nil {
		return nil, err
	}
	for field := range previous {
		if _, kept := status[field]; !kept {
			status[field] = nil
		}
	}
	return json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": resourceVersion},
		"status":   status,
	})
}

func jsonFields(status tutorialv1.FooStatus) (map[string]any, error) {
	encoded, err := json.Marshal(status)
	if err != nil {
		return nil, err
	}
	fields := map[string]any{}
	return fields, json.Unmarshal(encoded, &fields)
}
