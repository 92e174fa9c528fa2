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

	"github.com/operator-framework/operator-lib/conditions"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// Options are what a deployment of the operator chooses about its controllers.
type Options struct {
	// MaxConcurrentReconciles is how many Foos may be reconciled at once.
	MaxConcurrentReconciles int
	// Upgradeable is the Upgradeable condition of the OperatorCondition that OLM v0 created
	// for this operator. Nil where there is none (OLM v1, make deploy, kubectl): a Foo that
	// asks for an upgrade hold is then told with a Warning Event that it holds nothing.
	Upgradeable conditions.Condition
}

// Setup registers every controller of the operator, with the indexes and metrics they use,
// with mgr. The manager's command and the controller suite both call it, so that the suite
// tests the wiring that runs.
func Setup(ctx context.Context, mgr ctrl.Manager, options Options) error {
	foos := &FooReconciler{
		Client:   mgr.GetClient(),
		Recorder: mgr.GetEventRecorderFor(ControllerName), //nolint:staticcheck // see FooReconciler.Recorder
	}
	if err := foos.SetupWithManager(ctx, mgr, controller.Options{MaxConcurrentReconciles: options.MaxConcurrentReconciles}); err != nil {
		return fmt.Errorf("setting up %s: %w", ControllerName, err)
	}

	if options.Upgradeable != nil {
		holds := &UpgradeHoldReconciler{Reader: mgr.GetClient(), Upgradeable: options.Upgradeable}
		if err := holds.SetupWithManager(ctx, mgr); err != nil {
			return fmt.Errorf("setting up %s: %w", UpgradeHoldControllerName, err)
		}
		return nil
	}
	// Said once here; each Foo that asks for a hold is told with an Event.
	mgr.GetLogger().WithName("setup").Info("Upgrade holds are not available: no OperatorCondition is named, as only OLM v0 names one; "+
		"Foos that carry the hold-upgrades annotation get a Warning Event instead",
		"annotation", tutorialv1.HoldUpgradesAnnotation)
	unavailable := &UpgradeHoldUnavailableReconciler{
		Reader:   mgr.GetClient(),
		Recorder: mgr.GetEventRecorderFor(UpgradeHoldUnavailableControllerName), //nolint:staticcheck // see FooReconciler.Recorder
	}
	if err := unavailable.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up %s: %w", UpgradeHoldUnavailableControllerName, err)
	}
	return nil
}
