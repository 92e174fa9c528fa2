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

package selftest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/internal/controller"
	"github.com/example/foo-operator/test/harness"
)

// The self-test against a real kube-apiserver and etcd (envtest, from `make test`), first
// with no operator, then with the controller running in a manager: it must fail, naming the
// step, without one, pass with one, and leave nothing behind either way.
func TestSelftest(t *testing.T) {
	cp, err := harness.StartControlPlane()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Error(err)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	watched := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "watched"}}
	if err := cp.Client.Create(ctx, watched); err != nil {
		t.Fatal(err)
	}

	t.Run("no operator: fails naming the first step, and removes its Foo", func(t *testing.T) {
		err := Run(ctx, cp.Client, Options{Namespace: watched.Name, Image: "friend", Timeout: 2 * time.Second, Log: testr.New(t)})
		if err == nil || !strings.Contains(err.Error(), "did not set the Foo unhappy while its friend does not exist within 2s") ||
			!strings.Contains(err.Error(), "observedGeneration 0 of generation 1, no Happy condition") {
			t.Fatalf("the self-test without an operator: error %v, want one naming the first step and the Foo's status", err)
		}
		expectNothingLeftIn(ctx, t, cp.Client, watched.Name)
	})

	manager, err := ctrl.NewManager(cp.Config, ctrl.Options{
		Scheme: harness.Scheme, Cache: controller.CacheOptions(nil),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := controller.Setup(ctx, manager, controller.Options{MaxConcurrentReconciles: 1}); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan error)
	go func() { stopped <- manager.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Errorf("the manager stopped with an error: %v", err)
		}
	})

	t.Run("in a watched namespace: passes, and removes its Foo and friend", func(t *testing.T) {
		if err := Run(ctx, cp.Client, Options{Namespace: watched.Name, Image: "friend", Timeout: 30 * time.Second, Log: testr.New(t)}); err != nil {
			t.Fatal(err)
		}
		expectNothingLeftIn(ctx, t, cp.Client, watched.Name)
	})

	t.Run("in a namespace of its own: passes, and deletes the namespace", func(t *testing.T) {
		if err := Run(ctx, cp.Client, Options{Image: "friend", Timeout: 30 * time.Second, Log: testr.New(t)}); err != nil {
			t.Fatal(err)
		}
		var namespaces corev1.NamespaceList
		if err := cp.Client.List(ctx, &namespaces); err != nil {
			t.Fatal(err)
		}
		made := 0
		for _, namespace := range namespaces.Items {
			if !strings.HasPrefix(namespace.Name, namespacePrefix) {
				continue
			}
			made++
			// envtest runs no namespace controller, which would finish the deletion.
			if namespace.DeletionTimestamp == nil {
				t.Errorf("namespace %s, which the self-test made, is not being deleted", namespace.Name)
			}
		}
		if made != 1 {
			t.Errorf("the self-test made %d namespaces, want 1", made)
		}
	})
}

// expectNothingLeftIn fails the test if a Foo or a pod is left in the namespace.
func expectNothingLeftIn(ctx context.Context, t *testing.T, c client.Client, namespace string) {
	t.Helper()
	var foos tutorialv1.FooList
	var pods corev1.PodList
	if err := c.List(ctx, &foos, client.InNamespace(namespace)); err != nil {
		t.Fatal(err)
	}
	if err := c.List(ctx, &pods, client.InNamespace(namespace)); err != nil {
		t.Fatal(err)
	}
	if len(foos.Items) != 0 || len(pods.Items) != 0 {
		t.Errorf("the self-test left %d Foos and %d pods in namespace %s", len(foos.Items), len(pods.Items), namespace)
	}
}
