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
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/testcluster"
)

// metricsReaderRole is the ClusterRole of the bundle that lets a scraper read the manager's
// metrics.
const metricsReaderRole = "foo-operator-metrics-reader"

// expectSizedBySubscription sets the manager's resources in the Subscription's
// spec.config.resources, as the catalog page's "Sizing under OLM" does (OLM owns the Deployment and
// reverts edits to it), and checks that the manager's pod runs with the new memory limit and
// that the Go runtime took it as its soft limit: config/manager passes limits.memory to it as
// GOMEMLIMIT, which the manager's go_gc_gomemlimit_bytes shows.
func expectSizedBySubscription(ctx context.Context, operatorNamespace, subscription, memoryLimit string) {
	GinkgoHelper()
	By("setting the manager's resources in the Subscription's spec.config.resources, limits.memory " + memoryLimit)
	kubectl(ctx, "-n", operatorNamespace, "patch", "subscription", subscription, "--type=merge", "-p",
		`{"spec":{"config":{"resources":{"requests":{"cpu":"10m","memory":"64Mi"},"limits":{"cpu":"500m","memory":"`+memoryLimit+`"}}}}}`)
	want := resource.MustParse(memoryLimit)
	var pod *corev1.Pod
	Eventually(func(g Gomega) {
		var err error
		pod, err = installedOperator(operatorNamespace).Pod(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		got := pod.Spec.Containers[0].Resources.Limits[corev1.ResourceMemory]
		g.Expect(got.Cmp(want)).To(BeZero(), "the memory limit of pod %s: %s", pod.Name, got.String())
		g.Expect(pod.Status.ContainerStatuses).To(ConsistOf(HaveField("Ready", BeTrue())),
			"pod %s: %s", pod.Name, resources.DescribePod(pod))
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())

	By("reading go_gc_gomemlimit_bytes from the manager's metrics endpoint, as a scraper bound to " + metricsReaderRole)
	token := metricsReaderToken(ctx, operatorNamespace)
	var last string
	Eventually(func(g Gomega) {
		value, err := scrapeGauge(ctx, pod, token, "go_gc_gomemlimit_bytes")
		last = fmt.Sprint(value, err)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(value).To(Equal(float64(want.Value())))
	}).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(Succeed(),
		func() string {
			return "go_gc_gomemlimit_bytes of pod " + pod.Name + " to be " + memoryLimit + "; last: " + last
		})
}

// metricsReaderToken makes a ServiceAccount bound to the bundle's metrics-reader ClusterRole,
// as a Prometheus is, and returns a token of it.
func metricsReaderToken(ctx context.Context, namespace string) string {
	GinkgoHelper()
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "metrics-scraper"}}
	Expect(k8sClient.Create(ctx, account)).To(Succeed())
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "e2e-metrics-scraper"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsReaderRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: account.Name}},
	}
	Expect(k8sClient.Create(ctx, binding)).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		Expect(k8sClient.Delete(ctx, binding)).To(Succeed())
		Expect(k8sClient.Delete(ctx, account)).To(Succeed())
	})
	request := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}}
	response, err := clientset.CoreV1().ServiceAccounts(namespace).CreateToken(ctx, account.Name, request, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return response.Status.Token
}

// scrapeGauge reads a gauge from the metrics endpoint of the manager's pod, at its pod
// address, from inside the cluster's network namespace, with a bearer token. The manager's
// certificate is self-signed, as the shipped ServiceMonitor (insecureSkipVerify) expects.
func scrapeGauge(ctx context.Context, pod *corev1.Pod, token, metric string) (float64, error) {
	network, err := testcluster.As[testcluster.PodDialer](cluster, testcluster.PodNetwork)
	if err != nil {
		return 0, err
	}
	families, err := harness.ScrapeManager(ctx, network.DialPod, pod.Status.PodIP, token)
	if err != nil {
		return 0, err
	}
	family, ok := families[metric]
	if !ok || len(family.GetMetric()) != 1 {
		return 0, fmt.Errorf("pod %s serves no single series %s", pod.Name, metric)
	}
	return family.GetMetric()[0].GetGauge().GetValue(), nil
}
