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

package v1_test

import (
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// This suite checks the Foo API as the apiserver serves it from the generated CRD: what it
// accepts, what it rejects, and what it tells the user about a rejection. No operator runs.
// controller-runtime's envtest starts kube-apiserver and etcd from the binaries `make envtest`
// builds (KUBEBUILDER_ASSETS).

var (
	testEnv *envtest.Environment
	// k8sClient is an administrator's client that knows the Foo types; config, its config.
	k8sClient client.Client
	config    *rest.Config
)

func TestAPI(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Foo API suite")
}

var _ = BeforeSuite(func() {
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	var err error
	config, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "starting kube-apiserver and etcd from KUBEBUILDER_ASSETS: run the tests with `make test`")
	DeferCleanup(func() { Expect(testEnv.Stop()).To(Succeed()) })

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(tutorialv1.AddToScheme(scheme)).To(Succeed())
	k8sClient, err = client.New(config, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
})
