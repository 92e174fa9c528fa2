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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

func TestUpgradeableCondition(t *testing.T) {
	held := func(namespace, name, reason string) tutorialv1.Foo {
		foo := tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
			Annotations: map[string]string{tutorialv1.HoldUpgradesAnnotation: reason}}}
		return foo
	}
	many := make([]tutorialv1.Foo, 12)
	for i := range many {
		many[i] = held("ns", fmt.Sprintf("foo-%02d", i), "")
	}

	tests := []struct {
		name        string
		held        []tutorialv1.Foo
		wantStatus  metav1.ConditionStatus
		wantReason  string
		wantMessage string
	}{
		{
			name: "no holds", wantStatus: metav1.ConditionTrue, wantReason: NoUpgradeHoldReason,
			wantMessage: "No Foo holds upgrades",
		},
		{
			name:       "holds are named with their reasons, in order",
			held:       []tutorialv1.Foo{held("b", "foo", ""), held("a", "foo", "migrating data")},
			wantStatus: metav1.ConditionFalse, wantReason: UpgradeHeldReason,
			wantMessage: "Upgrades are held by the tutorial.my.domain/hold-upgrades annotation on 2 Foo(s): " +
				"a/foo (migrating data), b/foo",
		},
		{
			name: "a long reason is cut", held: []tutorialv1.Foo{held("a", "foo", strings.Repeat("x", 150))},
			wantStatus: metav1.ConditionFalse, wantReason: UpgradeHeldReason,
			wantMessage: "Upgrades are held by the tutorial.my.domain/hold-upgrades annotation on 1 Foo(s): " +
				"a/foo (" + strings.Repeat("x", 100) + "...)",
		},
		{
			name: "many holds are counted, and the first ten named", held: many,
			wantStatus: metav1.ConditionFalse, wantReason: UpgradeHeldReason,
			wantMessage: "Upgrades are held by the tutorial.my.domain/hold-upgrades annotation on 12 Foo(s): " +
				"ns/foo-00, ns/foo-01, ns/foo-02, ns/foo-03, ns/foo-04, ns/foo-05, ns/foo-06, ns/foo-07, ns/foo-08, ns/foo-09, and 2 more",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			got := upgradeableCondition(tt.held)
			g.Expect(got.Type).To(Equal(operatorsv2.Upgradeable))
			g.Expect(got.Status).To(Equal(tt.wantStatus))
			g.Expect(got.Reason).To(Equal(tt.wantReason))
			g.Expect(got.Message).To(Equal(tt.wantMessage))
		})
	}
}

func TestHoldChanged(t *testing.T) {
	foo := func(annotations map[string]string) *tutorialv1.Foo {
		return &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Annotations: annotations}}
	}
	hold := func(reason string) map[string]string {
		return map[string]string{tutorialv1.HoldUpgradesAnnotation: reason}
	}
	other := map[string]string{"note": "unrelated"}

	tests := []struct {
		name string
		pass bool
		got  bool
	}{
		{name: "holding Foo created", pass: true, got: holdChanged.Create(event.CreateEvent{Object: foo(hold(""))})},
		{name: "plain Foo created", pass: false, got: holdChanged.Create(event.CreateEvent{Object: foo(other)})},
		{name: "holding Foo deleted", pass: true, got: holdChanged.Delete(event.DeleteEvent{Object: foo(hold("x"))})},
		{name: "plain Foo deleted", pass: false, got: holdChanged.Delete(event.DeleteEvent{Object: foo(nil)})},
		{name: "hold added", pass: true, got: holdChanged.Update(event.UpdateEvent{ObjectOld: foo(nil), ObjectNew: foo(hold(""))})},
		{name: "hold removed", pass: true, got: holdChanged.Update(event.UpdateEvent{ObjectOld: foo(hold("")), ObjectNew: foo(other)})},
		{name: "hold reason changed", pass: true, got: holdChanged.Update(event.UpdateEvent{ObjectOld: foo(hold("a")), ObjectNew: foo(hold("b"))})},
		{name: "other annotation changed", pass: false, got: holdChanged.Update(event.UpdateEvent{ObjectOld: foo(nil), ObjectNew: foo(other)})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(tt.got).To(Equal(tt.pass))
		})
	}
}
