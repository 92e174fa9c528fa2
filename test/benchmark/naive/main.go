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

// Command naive is the Foo controller as the tutorial writes it, kept only as a reference
// for the benchmark and never shipped. It caches full Pods; each reconcile lists every pod
// in the cluster and compares names in a loop; each pod event lists every Foo and compares
// spec.name; and the status is written with Update every time, whether it changed or not.
package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/test/benchmark/fooapi"
)

func main() {
	flags := fooapi.ParseFlags("reconcile")
	log := ctrl.Log.WithName("naive")

	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(fooapi.AddToScheme(scheme, flags.Group))

	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: flags.MetricsAddr},
		HealthProbeBindAddress: flags.ProbeAddr,
		PprofBindAddress:       flags.PprofAddr,
	})
	if err != nil {
		log.Error(err, "Unable to create the manager")
		os.Exit(1)
	}

	ctx := ctrl.SetupSignalHandler()
	err = ctrl.NewControllerManagedBy(mgr).
		Named("naive").
		For(&tutorialv1.Foo{}).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(everyFooNaming(mgr.GetClient()))).
		Complete(&reconciler{Client: mgr.GetClient()})
	if err == nil {
		err = mgr.AddReadyzCheck("informers", func(req *http.Request) error {
			ctx, cancel := context.WithTimeout(req.Context(), time.Second)
			defer cancel()
			if !mgr.GetCache().WaitForCacheSync(ctx) {
				return errors.New("informer caches have not synced yet")
			}
			return nil
		})
	}
	if err != nil {
		log.Error(err, "Unable to set up the controller")
		os.Exit(1)
	}
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "Manager stopped with an error")
		os.Exit(1)
	}
}

type reconciler struct {
	client.Client
}

// Reconcile lists every pod in the cluster and looks for the friend by name, then writes
// the status whether or not it changed.
func (r *reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var foo tutorialv1.Foo
	if err := r.Get(ctx, req.NamespacedName, &foo); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}

	var pods corev1.PodList
	if err := r.List(ctx, &pods); err != nil {
		return ctrl.Result{}, err
	}
	happy := false
	for _, pod := range pods.Items {
		if pod.Namespace == foo.Namespace && pod.Name == foo.Spec.Name {
			happy = true
		}
	}

	foo.Status.Happy = happy
	return ctrl.Result{}, client.IgnoreNotFound(r.Status().Update(ctx, &foo))
}

// everyFooNaming maps a pod event to the Foos that name the pod, by listing every Foo.
func everyFooNaming(reader client.Reader) handler.MapFunc {
	return func(ctx context.Context, pod client.Object) []reconcile.Request {
		var foos tutorialv1.FooList
		if err := reader.List(ctx, &foos); err != nil {
			return nil
		}
		var requests []reconcile.Request
		for _, foo := range foos.Items {
			if foo.Namespace == pod.GetNamespace() && foo.Spec.Name == pod.GetName() {
				requests = append(requests, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}})
			}
		}
		return requests
	}
}
