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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// These benchmarks measure the work each reconcile does besides its cached reads and its
// one possible write. They report; they never fail on timing.

func BenchmarkDesired(b *testing.B) {
	foo := &tutorialv1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "foo", Generation: 2},
		Spec:       tutorialv1.FooSpec{Name: "jack"},
	}
	jack := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "jack", UID: "uid-jack"}}
	now := metav1.Now().Rfc3339Copy()
	foo.Status = Desired(foo, jack, now)

	b.ReportAllocs()
	for b.Loop() {
		Desired(foo, jack, now)
	}
}

func BenchmarkMergePatch(b *testing.B) {
	foo := &tutorialv1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "foo", Generation: 2},
		Spec:       tutorialv1.FooSpec{Name: "jack"},
	}
	jack := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "jack", UID: "uid-jack"}}
	happy := Desired(foo, jack, metav1.Now().Rfc3339Copy())
	unhappy := Desired(foo, nil, metav1.Now().Rfc3339Copy())

	b.ReportAllocs()
	for b.Loop() {
		if _, err := MergePatch("42", happy, unhappy); err != nil {
			b.Fatal(err)
		}
	}
}
