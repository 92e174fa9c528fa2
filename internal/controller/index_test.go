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
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

func TestFriendName(t *testing.T) {
	tests := []struct {
		name string
		obj  client.Object
		want []string
	}{
		{name: "a Foo is indexed by its friend", obj: newFoo("ns", "foo", "jack"), want: []string{"jack"}},
		{name: "a Foo without friend is not indexed", obj: newFoo("ns", "foo", ""), want: nil},
		{name: "other kinds are not indexed", obj: &corev1.Pod{}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(friendName(tt.obj)).To(Equal(tt.want))
		})
	}
}

func TestFoosNamingPod(t *testing.T) {
	scheme := runtime.NewScheme()
	NewWithT(t).Expect(tutorialv1.AddToScheme(scheme)).To(Succeed())
	// The fake client is enough here: this checks which requests the index lookup turns into.
	// The envtest suite checks the same mapping end to end against a real apiserver.
	reader := fake.NewClientBuilder().
		WithScheme(scheme).
		WithIndex(&tutorialv1.Foo{}, friendNameField, friendName).
		WithObjects(
			newFoo("ns-a", "foo-01", "jack"),
			newFoo("ns-a", "foo-02", "jack"),
			newFoo("ns-a", "foo-03", "joe"),
			newFoo("ns-b", "foo-04", "jack"),
		).
		Build()
	request := func(namespace, name string) reconcile.Request {
		return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}}
	}

	tests := []struct {
		name string
		pod  client.Object
		want []reconcile.Request
	}{
		{
			name: "every Foo naming the pod in its namespace",
			pod:  podMetadata("ns-a", "jack"),
			want: []reconcile.Request{request("ns-a", "foo-01"), request("ns-a", "foo-02")},
		},
		{name: "only the pod's own namespace", pod: podMetadata("ns-b", "jack"), want: []reconcile.Request{request("ns-b", "foo-04")}},
		{name: "a pod nobody names", pod: podMetadata("ns-a", "jill"), want: []reconcile.Request{}},
		{name: "a namespace without Foos", pod: podMetadata("ns-c", "jack"), want: []reconcile.Request{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := foosNamingPod(reader)(context.Background(), tt.pod)
			NewWithT(t).Expect(got).To(ConsistOf(tt.want))
		})
	}
}

func newFoo(namespace, name, friend string) *tutorialv1.Foo {
	return &tutorialv1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       tutorialv1.FooSpec{Name: friend},
	}
}

func podMetadata(namespace, name string) *metav1.PartialObjectMetadata {
	pod := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	pod.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	return pod
}
