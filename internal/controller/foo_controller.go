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

// Package controller holds the Foo controller: it keeps each Foo's status in step with
// the pods that exist in its namespace.
package controller

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/internal/status"
)

// ControllerName names the controller in logs, metrics and the Events it emits.
const ControllerName = "foo-controller"

// FooReconciler sets each Foo's status.happy from whether its friend pod exists.
type FooReconciler struct {
	client.Client
	// Recorder emits core/v1 Events. The events.k8s.io recorder would need RBAC on the
	// events.k8s.io group, which OLM's bundle validators still flag as an API removed in 1.25.
	Recorder record.EventRecorder

	// replaced holds, per Foo (types.NamespacedName), the resourceVersion that this
	// reconciler's last status write replaced, until the cache shows a newer one. A reconcile
	// that still reads that version from the cache would decide on a copy it knows to be
	// stale, and its write could only be refused for a conflict. This happens whenever a pod
	// event arrives before the watch event of the previous write, as when a pod that was
	// just marked for deletion goes.
	replaced sync.Map
}

// The controller reads Foos and pods from its cache only: it lists and watches them, and
// never gets one from the apiserver. It writes a Foo's status with a merge patch, and
// Events (patched to count repeats). Each rule is needed: test/security takes them away one
// at a time and sees what breaks.
// +kubebuilder:rbac:groups=tutorial.my.domain,resources=foos,verbs=list;watch
// +kubebuilder:rbac:groups=tutorial.my.domain,resources=foos/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=list;watch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// Reconcile recomputes one Foo's status from the pods that exist now, and writes it only
// when it differs from what the Foo already shows.
func (r *FooReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	// At V(2), when each reconcile starts and ends, for the benchmark's breakdown of its
	// slowest events; controller-runtime logs neither.
	log := logf.FromContext(ctx)
	log.V(2).Info(LogReconciling)
	defer log.V(2).Info(LogReconciled)

	var foo tutorialv1.Foo
	if err := r.Get(ctx, req.NamespacedName, &foo); err != nil {
		if apierrors.IsNotFound(err) {
			r.replaced.Delete(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if version, written := r.replaced.Load(req.NamespacedName); written {
		if version == foo.ResourceVersion {
			// The watch event of that write brings the Foo back here with the newer copy.
			log.V(1).Info("Not reconciled: the cache has not yet seen the last status write")
			return ctrl.Result{}, nil
		}
		r.replaced.CompareAndDelete(req.NamespacedName, version)
	}

	friend, err := r.findFriend(ctx, foo.Namespace, foo.Spec.Name)
	if err != nil {
		return ctrl.Result{}, err
	}

	desired := status.Desired(&foo, friend, metav1.Now().Rfc3339Copy())
	if equality.Semantic.DeepEqual(foo.Status, desired) {
		return ctrl.Result{}, nil
	}

	before, version := foo.Status, foo.ResourceVersion
	if err := r.patchStatus(ctx, &foo, desired); err != nil {
		if apierrors.IsConflict(err) {
			// The Foo changed after the cache last saw it; the event of that change brings it
			// back here with the newer copy, so there is nothing to retry now.
			log.V(1).Info("Status not written: the Foo changed meanwhile")
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// A write the apiserver found to change nothing (as when it prunes a field an older CRD
	// lacks) keeps the resourceVersion and brings no event to wait for.
	if foo.ResourceVersion != version {
		r.replaced.Store(req.NamespacedName, version)
	}
	log.V(1).Info(LogUpdatedStatus, "friend", foo.Spec.Name, "happy", desired.Happy)

	if status.HappyTransition(before, desired) {
		r.announceTransition(&foo, desired)
	}
	return ctrl.Result{}, nil
}

// announceTransition tells that a Foo changed its mood, to users with an Event on the Foo
// and to monitoring with foo_operator_happy_transitions_total.
func (r *FooReconciler) announceTransition(foo *tutorialv1.Foo, desired tutorialv1.FooStatus) {
	condition := meta.FindStatusCondition(desired.Conditions, tutorialv1.HappyCondition)
	r.Recorder.Event(foo, corev1.EventTypeNormal, condition.Reason, condition.Message)
	countHappyTransition(desired.Happy, condition.Reason)
}

// findFriend returns the metadata of the pod named name in namespace, or nil if there is none.
func (r *FooReconciler) findFriend(ctx context.Context, namespace, name string) (*metav1.PartialObjectMetadata, error) {
	pod := &metav1.PartialObjectMetadata{}
	pod.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	err := r.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, pod)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("looking up friend pod %s/%s: %w", namespace, name, err)
	}
	return pod, nil
}

// patchStatus replaces the Foo's status with desired. The patch applies only to the version of
// the Foo it was computed from: a status (and an Event) decided on a stale copy is never written.
func (r *FooReconciler) patchStatus(ctx context.Context, foo *tutorialv1.Foo, desired tutorialv1.FooStatus) error {
	patch, err := status.MergePatch(foo.ResourceVersion, foo.Status, desired)
	if err != nil {
		return fmt.Errorf("encoding status patch: %w", err)
	}
	if err := r.Status().Patch(ctx, foo, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("patching status: %w", err)
	}
	return nil
}

// SetupWithManager registers the spec.name index, the Foo count metric and the controller
// with mgr.
func (r *FooReconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager, options controller.Options) error {
	if err := mgr.GetFieldIndexer().IndexField(ctx, &tutorialv1.Foo{}, friendNameField, friendName); err != nil {
		return fmt.Errorf("indexing Foos by %s: %w", friendNameField, err)
	}
	if err := metrics.Registry.Register(foosCollector{cache: mgr.GetCache()}); err != nil {
		return fmt.Errorf("registering the Foo count metric: %w", err)
	}

	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		WithOptions(options).
		For(&tutorialv1.Foo{}).
		WatchesMetadata(&corev1.Pod{},
			handler.EnqueueRequestsFromMapFunc(foosNamingPod(mgr.GetClient())),
			builder.WithPredicates(friendshipChanged),
		).
		Complete(r)
}

// friendshipChanged passes the pod events that can change whether a pod is a friend: it is
// created, deleted, or starts terminating. Other updates (status, labels) are the bulk of
// pod traffic and are dropped before any lookup.
var friendshipChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.GetDeletionTimestamp().IsZero() != e.ObjectNew.GetDeletionTimestamp().IsZero()
	},
}
