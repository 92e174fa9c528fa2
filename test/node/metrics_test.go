//go:build node

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

package node

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/example/foo-operator/test/harness"
)

// metricsURL is the manager's metrics endpoint through its Service, as a Prometheus in the
// cluster scrapes it.
var metricsURL = fmt.Sprintf("https://foo-operator-controller-manager-metrics-service.%s.svc:8443/metrics", harness.OperatorNamespace)

// tokenFile is where the kubelet projects a pod's ServiceAccount token.
const tokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"

var _ = Describe("The metrics endpoint, reached from another pod through the Service", func() {
	AfterEach(operator.LogsOnFailure)

	It("answers a ServiceAccount bound to metrics-reader and refuses any other caller", func(ctx context.Context) {
		namespace := createNamespace(ctx, "monitoring-", nil)
		reader := serviceAccount(ctx, namespace, "prometheus", true)
		stranger := serviceAccount(ctx, namespace, "stranger", false)

		By("scraping with the token of a ServiceAccount bound to metrics-reader")
		code, output := scrape(ctx, namespace, "allowed", reader, true)
		Expect(code).To(BeZero(), output)
		Expect(output).To(HavePrefix("HTTP 200"))
		// The operator's own series, which exist from its start (foo_operator_foos has
		// series only while there are Foos).
		Expect(output).To(ContainSubstring("foo_operator_happy_transitions_total"))
		// The Go runtime holds the container's memory limit (256Mi) as its own soft limit,
		// which config/manager passes it in GOMEMLIMIT.
		Expect(output).To(ContainSubstring("go_gc_gomemlimit_bytes 2.68435456e+08"))

		By("scraping with the token of a ServiceAccount that is not")
		code, output = scrape(ctx, namespace, "stranger", stranger, true)
		Expect(code).To(BeEquivalentTo(1), output)
		Expect(output).To(HavePrefix("HTTP 403"))

		By("scraping without a token")
		code, output = scrape(ctx, namespace, "anonymous", stranger, false)
		Expect(code).To(BeEquivalentTo(1), output)
		Expect(output).To(HavePrefix("HTTP 401"))
	})

	It("is reachable with config/network-policy applied, which this node's bridge plugin does not enforce", func(ctx context.Context) {
		policies, err := harness.Render("network-policy")
		Expect(err).NotTo(HaveOccurred())
		Expect(policies).To(HaveLen(1))
		policy := policies[0]
		// config/default would name and place it; it is not part of config/default by default.
		policy.SetNamespace(harness.OperatorNamespace)
		policy.SetName("foo-operator-" + policy.GetName())
		Expect(k8sClient.Create(ctx, policy)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, policy)).To(Succeed()) })

		By("scraping from a namespace labelled metrics=enabled, which the policy lets in")
		allowed := createNamespace(ctx, "monitoring-", map[string]string{"metrics": "enabled"})
		code, output := scrape(ctx, allowed, "allowed", serviceAccount(ctx, allowed, "prometheus", true), true)
		Expect(code).To(BeZero(), output)

		By("scraping from an unlabelled namespace, which the policy would keep out")
		other := createNamespace(ctx, "elsewhere-", nil)
		code, output = scrape(ctx, other, "elsewhere", serviceAccount(ctx, other, "prometheus", true), true)
		// The bridge CNI plugin implements no NetworkPolicy: the request gets through. With a
		// plugin that enforces them (Calico, Cilium), it would time out.
		Expect(code).To(BeZero(), "the bridge plugin enforces no NetworkPolicy, so this gets through: %s", output)
		AddReportEntry("NetworkPolicy", "applied, not enforced by the bridge CNI plugin: a pod outside the allowed namespaces still scraped the metrics")
	})
})

// serviceAccount creates a ServiceAccount, bound to the operator's metrics-reader
// ClusterRole if reader.
func serviceAccount(ctx context.Context, namespace, name string, reader bool) string {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}})).To(Succeed())
	if reader {
		binding := &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "metrics-reader-"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: harness.MetricsReaderRole},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}},
		}
		Expect(k8sClient.Create(ctx, binding)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, binding)).To(Succeed()) })
	}
	return name
}

// scrape runs httpget in a pod as serviceAccount, with its token if withToken, against the
// metrics Service, and returns its exit code and output. The manager's certificate is
// self-signed, as the shipped ServiceMonitor (insecureSkipVerify) expects.
//
// A scrape that got no answer at all (httpget's exit code 2) is tried again, in a new pod:
// right after the operator's pod was replaced, the Service may still be catching up with
// the new pod, as it would for a Prometheus. An answer, allowed or refused, is final.
func scrape(ctx context.Context, namespace, name, serviceAccount string, withToken bool) (int32, string) {
	GinkgoHelper()
	args := []string{"--insecure"}
	if withToken {
		args = append(args, "--token-file", tokenFile)
	}
	var (
		code    int32
		output  string
		attempt int
	)
	Eventually(func() int32 {
		attempt++
		pod := harness.RestrictedPod(namespace, fmt.Sprintf("%s-%d", name, attempt), cluster.Image("httpget"), append(args, metricsURL)...)
		pod.Spec.ServiceAccountName = serviceAccount
		pod.Spec.AutomountServiceAccountToken = ptr.To(withToken)
		code, output = runToCompletion(ctx, pod)
		return code
	}).WithContext(ctx).WithTimeout(time.Minute).ShouldNot(BeEquivalentTo(2),
		func() string { return "an answer from " + metricsURL + "; last: " + output })
	return code, output
}
