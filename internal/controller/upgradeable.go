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
	"fmt"
	"sort"
	"strings"

	apiv2 "github.com/operator-framework/api/pkg/operators/v2"
	"github.com/operator-framework/operator-lib/conditions"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// UpgradeHoldControllerName names the controller that publishes the Upgradeable condition.
const UpgradeHoldControllerName = "upgrade-hold-controller"

// Reasons of the Upgradeable condition the operator publishes to OLM.
const (
	// NoUpgradeHoldReason: no Foo carries the hold-upgrades annotation.
	NoUpgradeHoldReason = "NoUpgradeHold"
	// UpgradeHeldReason: at least one Foo carries the hold-upgrades annotation.
	UpgradeHeldReason = "UpgradeHeld"
)

// upgradeHoldField indexes the Foos that carry the hold-upgrades annotation, so that finding
// them reads only those Foos.
const upgradeHoldField = "metadata.annotations.hold-upgrades"

// heldNamesShown and holdReasonShown cap what the condition's message quotes, so that it
// stays readable (and within the API's limits) however many Foos hold upgrades.
const (
	heldNamesShown  = 10
	holdReasonShown = 100
)

// upgradeHoldRequest is the one request of the controller: there is one condition to publish.
var upgradeHoldRequest = reconcile.Request{NamespacedName: types.NamespacedName{Name: "upgradeable"}}

// UpgradeHoldReconciler publishes OLM's Upgradeable condition for this operator: False while
// any watched Foo carries the hold-upgrades annotation, True otherwise.
type UpgradeHoldReconciler struct {
	// Reader lists the holding Foos; the manager's cache, with the upgrade-hold index.
	Reader client.Reader
	// Upgradeable is the condition in the OperatorCondition OLM created for this operator.
	Upgradeable conditions.Condition
}

// Reconcile computes the condition from the Foos that hold upgrades now and writes it only
// when it differs from the published one.
func (r *UpgradeHoldReconciler) Reconcile(ctx context.Context, _ reconcile.Request) (ctrl.Result, error) {
	var held tutorialv1.FooList
	if err := r.Reader.List(ctx, &held, client.MatchingFields{upgradeHoldField: "true"}, client.UnsafeDisableDeepCopy); err != nil {
		return ctrl.Result{}, fmt.Errorf("listing Foos that hold upgrades: %w", err)
	}
	desired := upgradeableCondition(held.Items)

	// An error here means the condition was never published, or cannot be read; either way
	// writing it is what to do, and the write reports what is wrong.
	if published, err := r.Upgradeable.Get(ctx); err == nil && sameCondition(*published, desired) {
		return ctrl.Result{}, nil
	}
	if err := r.Upgradeable.Set(ctx, desired.Status,
		conditions.WithReason(desired.Reason), conditions.WithMessage(desired.Message)); err != nil {
		return ctrl.Result{}, fmt.Errorf("publishing the Upgradeable condition: %w", err)
	}
	logf.FromContext(ctx).Info("Published the Upgradeable condition",
		"upgradeable", desired.Status, "reason", desired.Reason, "message", desired.Message)
	return ctrl.Result{}, nil
}

// upgradeableCondition computes the Upgradeable condition from the Foos that hold upgrades.
func upgradeableCondition(held []tutorialv1.Foo) metav1.Condition {
	if len(held) == 0 {
		return metav1.Condition{
			Type: apiv2.Upgradeable, Status: metav1.ConditionTrue, Reason: NoUpgradeHoldReason,
			Message: "No Foo holds upgrades",
		}
	}

	holds := make([]string, 0, len(held))
	for _, foo := range held {
		hold := foo.Namespace + "/" + foo.Name
		if reason := foo.Annotations[tutorialv1.HoldUpgradesAnnotation]; reason != "" {
			if len(reason) > holdReasonShown {
				reason = reason[:holdReasonShown] + "..."
			}
			hold += " (" + reason + ")"
		}
		holds = append(holds, hold)
	}
	sort.Strings(holds)
	shown := holds[:min(len(holds), heldNamesShown)]
	message := fmt.Sprintf("Upgrades are held by the %s annotation on %d Foo(s): %s",
		tutorialv1.HoldUpgradesAnnotation, len(holds), strings.Join(shown, ", "))
	if len(holds) > len(shown) {
		message += fmt.Sprintf(", and %d more", len(holds)-len(shown))
	}
	return metav1.Condition{
		Type: apiv2.Upgradeable, Status: metav1.ConditionFalse, Reason: UpgradeHeldReason, Message: message,
	}
}

func sameCondition(a, b metav1.Condition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message
}

// holdsUpgrades is the index function behind upgradeHoldField.
func holdsUpgrades(obj client.Object) []string {
	if _, held := obj.GetAnnotations()[tutorialv1.HoldUpgradesAnnotation]; held {
		return []string{"true"}
	}
	return nil
}

// holdChanged passes the Foo events that can change the condition: a holding Foo comes or
// goes, or a Foo's hold is added, changed or removed.
var holdChanged = predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool { return holdsUpgrades(e.Object) != nil },
	DeleteFunc: func(e event.DeleteEvent) bool { return holdsUpgrades(e.Object) != nil },
	UpdateFunc: func(e event.UpdateEvent) bool {
		before, heldBefore := e.ObjectOld.GetAnnotations()[tutorialv1.HoldUpgradesAnnotation]
		after, heldAfter := e.ObjectNew.GetAnnotations()[tutorialv1.HoldUpgradesAnnotation]
		return heldBefore != heldAfter || before != after
	},
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// SetupWithManager registers the upgrade-hold index and the controller with mgr.
func (r *UpgradeHoldReconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(ctx, &tutorialv1.Foo{}, upgradeHoldField, holdsUpgrades); err != nil {
		return fmt.Errorf("indexing Foos by %s: %w", upgradeHoldField, err)
	}

	toTheCondition := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{upgradeHoldRequest}
	})
	// Publish once at start, so that OLM learns the operator is upgradeable even when no
	// Foo ever holds upgrades.
	atStart := source.Func(func(_ context.Context, queue workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		queue.Add(upgradeHoldRequest)
		return nil
	})

	return ctrl.NewControllerManagedBy(mgr).
		Named(UpgradeHoldControllerName).
		Watches(&tutorialv1.Foo{}, toTheCondition, builder.WithPredicates(holdChanged)).
		WatchesRawSource(atStart).
		Complete(r)
}

// UpgradeHoldUnavailableControllerName names the controller that warns of holds that hold
// nothing.
const UpgradeHoldUnavailableControllerName = "upgrade-hold-unavailable-controller"

// UpgradeHoldUnavailableReason is the reason of the Warning Event on a Foo whose hold-upgrades
// annotation cannot hold anything.
const UpgradeHoldUnavailableReason = "UpgradeHoldUnavailable"

// UpgradeHoldUnavailableReconciler runs instead of UpgradeHoldReconciler when the operator
// has no OperatorCondition to publish to: OLM v1, `make deploy` and kubectl install it
// without one, and only OLM v0 reads one. A hold asked for there would hold nothing, so each
// Foo that carries the hold-upgrades annotation gets a Warning Event saying so, when the
// annotation is set or changed, and once for every such Foo when the operator starts.
type UpgradeHoldUnavailableReconciler struct {
	// Reader reads the Foo; the manager's cache.
	Reader client.Reader
	// Recorder emits core/v1 Events, as FooReconciler's does.
	Recorder record.EventRecorder
}

// Reconcile warns on the Foo if it carries the hold-upgrades annotation now.
func (r *UpgradeHoldUnavailableReconciler) Reconcile(ctx context.Context, req reconcile.Request) (ctrl.Result, error) {
	var foo tutorialv1.Foo
	if err := r.Reader.Get(ctx, req.NamespacedName, &foo); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if holdsUpgrades(&foo) == nil {
		return ctrl.Result{}, nil
	}
	r.Recorder.Eventf(&foo, corev1.EventTypeWarning, UpgradeHoldUnavailableReason,
		"The %s annotation holds no upgrade: the operator runs without an OLM OperatorCondition "+
			"(only OLM v0 gives it one; OLM v1, make deploy and kubectl do not), so no installer asks it whether to upgrade",
		tutorialv1.HoldUpgradesAnnotation)
	return ctrl.Result{}, nil
}

// SetupWithManager registers the controller with mgr. It sees the Foos whose hold is added or
// changed (a removed hold needs no warning), and every holding Foo at start.
func (r *UpgradeHoldUnavailableReconciler) SetupWithManager(mgr ctrl.Manager) error {
	holdSet := predicate.And(holdChanged, predicate.NewPredicateFuncs(func(obj client.Object) bool {
		return holdsUpgrades(obj) != nil
	}))
	return ctrl.NewControllerManagedBy(mgr).
		Named(UpgradeHoldUnavailableControllerName).
		For(&tutorialv1.Foo{}, builder.WithPredicates(holdSet)).
		Complete(r)
}
