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
	"testing"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// These benchmarks measure the work each reconcile does besides its cached reads and its
// one possible write. They report; they never fail on timing.

func BenchmarkFriendName(b *testing.B) {
	foo := &tutorialv1.Foo{Spec: tutorialv1.FooSpec{Name: "jack"}}

	b.ReportAllocs()
	for b.Loop() {
		friendName(foo)
	}
}
