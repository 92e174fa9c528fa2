//go:build e2e

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

package e2e

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// olmv1Version is the OLM v1 (operator-controller and catalogd) release the suite installs;
// its module is OLMV1_MODULE, and test/e2e/olmv1 adapts its manifests to this cluster.
const olmv1Version = "v1.5.1"

// olmv1Namespace is where OLM v1 runs, as its release installs it.
const olmv1Namespace = "olmv1-system"

// The Secrets cert-manager would fill for OLM v1's release, and the Services they serve:
// catalogd serves catalogs and its webhook with the first; operator-controller serves its
// metrics with the second, and reads ca.crt of it to trust catalogd and registries.
var olmv1Certificates = map[string][]string{
	"catalogd-service-cert-git-version": {"localhost", "catalogd-service.olmv1-system.svc", "catalogd-service.olmv1-system.svc.cluster.local"},
	"olmv1-cert":                        {"operator-controller-service.olmv1-system.svc", "operator-controller-service.olmv1-system.svc.cluster.local"},
}

// installOLMv1 installs OLM v1 from its release manifests, as adapted by test/e2e/olmv1;
// then the serving certificates its cert-manager objects would have issued, and the CA of its
// mutating webhook; then waits until catalogd and operator-controller are available.
func installOLMv1(ctx context.Context) {
	GinkgoHelper()
	By("installing OLM " + olmv1Version + " (operator-controller, catalogd) from its release manifests, adapted by test/e2e/olmv1")
	module := requiredEnv("OLMV1_MODULE", "the folder of operator-controller's module")
	dir := filepath.Join(workDir, "olmv1")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	release, err := os.ReadFile(filepath.Join(module, "manifests", "standard.yaml"))
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(dir, "release.yaml"), release, 0o644)).To(Succeed())
	createKustomizedRelease(ctx, "olmv1", dir, registryAddress+"/operator-framework/operator-controller:"+olmv1Version)

	// Both programs pull images themselves, from the local registry: the CA bundle they
	// are given (ca.crt, their only trust) holds the registry's CA besides the services'.
	registryCA, err := os.ReadFile(cluster.Registry.CAFile)
	Expect(err).NotTo(HaveOccurred())
	var servicesCA []byte
	for name, dnsNames := range olmv1Certificates {
		certPEM, keyPEM, caPEM, err := cluster.ServiceCertificate(name, dnsNames)
		Expect(err).NotTo(HaveOccurred())
		servicesCA = caPEM
		Expect(k8sClient.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: olmv1Namespace, Name: name},
			Type:       corev1.SecretTypeTLS,
			Data: map[string][]byte{
				corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM,
				"ca.crt": append(append([]byte{}, caPEM...), registryCA...),
			},
		})).To(Succeed())
	}
	kubectl(ctx, "patch", "mutatingwebhookconfiguration", "catalogd-mutating-webhook-configuration", "--type=json",
		"-p", `[{"op":"add","path":"/webhooks/0/clientConfig/caBundle","value":"`+base64.StdEncoding.EncodeToString(servicesCA)+`"}]`)

	for _, deployment := range []string{"catalogd-controller-manager", "operator-controller-controller-manager"} {
		Expect(cluster.WaitDeploymentAvailable(ctx, olmv1Namespace, deployment, installTimeout)).To(Succeed())
	}
}
