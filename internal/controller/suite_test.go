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
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	olmcrds "github.com/operator-framework/api/crds"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// This suite runs the controller in a real manager against a real kube-apiserver and etcd,
// started by controller-runtime's envtest from the binaries `make envtest` builds (which
// KUBEBUILDER_ASSETS names), and observes it only through the API, as a user would.

var (
	testEnv   *envtest.Environment
	k8sClient client.Client
	// managerClient reads through the manager's cache, as the controller does.
	managerClient client.Client
	ctx           context.Context
	cancel        context.CancelFunc
	// logged is everything the manager logs, its reconciles' V(2) lines included.
	logged = &managerLog{}
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Foo controller suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true), logged.alsoTo()))
	// A real apiserver on a busy machine can take seconds to answer; a broken controller
	// never gets there, so a generous bound costs nothing when the tests pass.
	SetDefaultEventuallyTimeout(30 * time.Second)
	SetDefaultEventuallyPollingInterval(50 * time.Millisecond)
	EnforceDefaultTimeoutsWhenUsingContexts()

	ctx, cancel = context.WithCancel(context.Background())

	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		// OLM's OperatorCondition, where the operator publishes whether it may be upgraded.
		CRDs: []*apiextensionsv1.CustomResourceDefinition{olmcrds.OperatorCondition()},
	}
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "starting kube-apiserver and etcd from KUBEBUILDER_ASSETS: run the tests with `make test`")

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(tutorialv1.AddToScheme(scheme)).To(Succeed())
	Expect(operatorsv2.AddToScheme(scheme)).To(Succeed())

	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  CacheOptions(nil),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	Expect(err).NotTo(HaveOccurred())
	managerClient = mgr.GetClient()
	// Wired as the manager's command wires it under OLM v0, which names an OperatorCondition;
	// two workers, so that reconciles of different Foos overlap as they do when deployed.
	Expect(Setup(ctx, mgr, Options{MaxConcurrentReconciles: 2, Upgradeable: createOperatorCondition()})).To(Succeed())

	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed(), "the manager stopped with an error")
	}()
	Expect(mgr.GetCache().WaitForCacheSync(ctx)).To(BeTrue())
})

var _ = AfterSuite(func() {
	cancel()
	Expect(testEnv.Stop()).To(Succeed())
})
