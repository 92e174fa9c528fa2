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
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// A pod event can arrive before the watch event of the reconciler's own last status write.
// The cache then still holds the Foo that write replaced; a status computed from it could
// only be refused for a conflict, so the reconciler waits for the write's event instead.
func TestReconcileWaitsForTheCacheToSeeItsOwnWrite(t *testing.T) {
	g := NewWithT(t)
	key := types.NamespacedName{Namespace: "ns", Name: "foo"}
	var stale *tutorialv1.Foo // when set, what the cache returns for the Foo
	patches := 0
	c := fooAndJack(g, key, interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if foo, ok := obj.(*tutorialv1.Foo); ok && stale != nil {
				stale.DeepCopyInto(foo)
				return nil
			}
			return c.Get(ctx, k, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			patches++
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
	r := &FooReconciler{Client: c, Recorder: record.NewFakeRecorder(10)}
	request := ctrl.Request{NamespacedName: key}

	before := &tutorialv1.Foo{}
	g.Expect(c.Get(context.Background(), key, before)).To(Succeed())
	_, err := r.Reconcile(context.Background(), request)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(patches).To(Equal(1), "the first reconcile writes the happy status")

	// The pod goes, and its event comes while the cache still holds the Foo before the write.
	g.Expect(c.Delete(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "jack"}})).To(Succeed())
	stale = before
	_, err = r.Reconcile(context.Background(), request)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(patches).To(Equal(1), "no status is written from a copy the reconciler knows to be stale")

	// The write's own event comes: the cache is current, and the pod's going is written.
	stale = nil
	_, err = r.Reconcile(context.Background(), request)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(patches).To(Equal(2))
	after := &tutorialv1.Foo{}
	g.Expect(c.Get(context.Background(), key, after)).To(Succeed())
	g.Expect(after.Status.Happy).To(BeFalse())
}

// A status write the apiserver leaves unchanged (it pruned the only difference, as an older
// CRD without status.friend does) produces no new version and no event: later reconciles
// must not wait for one.
func TestReconcileDoesNotWaitForAWriteThatChangedNothing(t *testing.T) {
	g := NewWithT(t)
	key := types.NamespacedName{Namespace: "ns", Name: "foo"}
	patches := 0
	c := fooAndJack(g, key, interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			patches++
			// The apiserver answers with the object as it was.
			return c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		},
	})
	r := &FooReconciler{Client: c, Recorder: record.NewFakeRecorder(10)}
	request := ctrl.Request{NamespacedName: key}

	_, err := r.Reconcile(context.Background(), request)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(patches).To(Equal(1))

	g.Expect(c.Delete(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "jack"}})).To(Succeed())
	_, err = r.Reconcile(context.Background(), request)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(patches).To(Equal(2), "the pod's going is written, not held back waiting for an event that never comes")
}

// fooAndJack is a client holding a Foo at key that looks for jack, and the pod jack, with
// funcs intercepting its calls.
func fooAndJack(g Gomega, key types.NamespacedName, funcs interceptor.Funcs) client.WithWatch {
	scheme := runtime.NewScheme()
	g.Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	g.Expect(tutorialv1.AddToScheme(scheme)).To(Succeed())
	return fake.NewClientBuilder().
		WithScheme(scheme).
		WithStatusSubresource(&tutorialv1.Foo{}).
		WithObjects(newFoo(key.Namespace, key.Name, "jack"),
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: "jack", UID: "uid-jack"}}).
		WithInterceptorFuncs(funcs).
		Build()
}
