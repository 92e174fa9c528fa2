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
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/hack/localcluster/pki"
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

	It("serves, with config/metrics-certs, the certificate of its Secret, which the ServiceMonitor's CA and server name verify; "+
		"a scraper trusting another CA is refused", func(ctx context.Context) {
		secretName, serverName := monitorTLS()
		Expect(metricsURL).To(ContainSubstring("//"+serverName+":"), "the Service the scrape goes through is the name the certificate is for")

		caPEM := serveMetricsCertificate(ctx, secretName, serverName)

		namespace := createNamespace(ctx, "monitoring-", nil)
		reader := serviceAccount(ctx, namespace, "prometheus", true)
		_, _, otherCA, err := pki.IssueServing(filepath.Join(workDir, "other-ca"), "another CA", "another", []string{serverName})
		Expect(err).NotTo(HaveOccurred())
		trusted := map[string][]byte{"ca.crt": caPEM, "other-ca.crt": otherCA}
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "trusted"},
			BinaryData: trusted})).To(Succeed())

		By("scraping with the Secret's CA and the ServiceMonitor's server name")
		code, output := scrape(ctx, namespace, "verified", reader, true, "--cacert", "/trusted/ca.crt", "--server-name", serverName)
		Expect(code).To(BeZero(), output)
		Expect(output).To(HavePrefix("HTTP 200"))

		By("scraping with another CA")
		code, output = scrape(ctx, namespace, "other-ca", reader, true, "--cacert", "/trusted/other-ca.crt", "--server-name", serverName)
		Expect(code).To(BeEquivalentTo(2), output)
		Expect(output).To(ContainSubstring("certificate signed by unknown authority"))
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
// metrics Service, and returns its exit code and output. Unless tlsArgs say otherwise, it
// accepts any server certificate: the manager's is self-signed, as the shipped
// ServiceMonitor (insecureSkipVerify) expects. The pod mounts the ConfigMap "trusted" of its
// namespace at /trusted, if there is one.
//
// A scrape that got no answer at all (httpget's exit code 2) is tried again, in a new pod:
// right after the operator's pod was replaced, the Service may still be catching up with
// the new pod, as it would for a Prometheus. An answer, allowed or refused, is final; and so
// is a certificate refused, which is the only other way that exits 2.
func scrape(ctx context.Context, namespace, name, serviceAccount string, withToken bool, tlsArgs ...string) (int32, string) {
	GinkgoHelper()
	args := tlsArgs
	if len(args) == 0 {
		args = []string{"--insecure"}
	}
	if withToken {
		args = append(args, "--token-file", tokenFile)
	}
	var (
		code    int32
		output  string
		attempt int
	)
	trusted := k8sClient.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "trusted"}, &corev1.ConfigMap{}) == nil
	Eventually(func() bool {
		attempt++
		pod := harness.RestrictedPod(namespace, fmt.Sprintf("%s-%d", name, attempt), cluster.Image("httpget"), append(args, metricsURL)...)
		pod.Spec.ServiceAccountName = serviceAccount
		pod.Spec.AutomountServiceAccountToken = ptr.To(withToken)
		if trusted {
			pod.Spec.Volumes = []corev1.Volume{{Name: "trusted", VolumeSource: corev1.VolumeSource{
				ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "trusted"}}}}}
			pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "trusted", MountPath: "/trusted", ReadOnly: true}}
		}
		code, output = runToCompletion(ctx, pod)
		return code != 2 || strings.Contains(output, "x509:")
	}).WithContext(ctx).WithTimeout(time.Minute).Should(BeTrue(),
		func() string { return "an answer from " + metricsURL + ", or a certificate refused; last: " + output })
	return code, output
}

// serveMetricsCertificate issues the Secret secretName, for serverName, from a CA of the
// suite's own, as cert-manager's Certificate of config/certmanager would, redeploys the
// manager with config/metrics-certs, which serves it, and returns the CA's certificate.
// Both are undone when the spec ends.
func serveMetricsCertificate(ctx context.Context, secretName, serverName string) (caPEM []byte) {
	GinkgoHelper()
	By("issuing the Secret " + secretName + " from a CA of the suite's own, as cert-manager's Certificate of config/certmanager would")
	dir, err := os.MkdirTemp(workDir, "metrics-ca-")
	Expect(err).NotTo(HaveOccurred())
	certPEM, keyPEM, caPEM, err := pki.IssueServing(dir, "foo-operator metrics CA", "foo-operator-metrics", []string{serverName})
	Expect(err).NotTo(HaveOccurred())
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: harness.OperatorNamespace, Name: secretName},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM, "ca.crt": caPEM},
	}
	Expect(k8sClient.Create(ctx, secret)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, secret)).To(Succeed()) })

	By("deploying the manager with config/metrics-certs")
	redeployManager(ctx, "metrics-certs")
	DeferCleanup(func(ctx context.Context) { redeployManager(ctx, "default") })
	return caPEM
}

// monitorTLS reads what config/prometheus/monitor_tls_patch.yaml has the ServiceMonitor
// verify the manager's certificate by: the Secret whose CA it trusts, and the server name.
func monitorTLS() (secretName, serverName string) {
	GinkgoHelper()
	var patch []struct {
		Value struct {
			CA struct {
				Secret struct{ Name, Key string }
			}
			ServerName string `json:"serverName"`
		}
	}
	file := filepath.Join(harness.RepoRoot, "config", "prometheus", "monitor_tls_patch.yaml")
	Expect(yaml.Unmarshal(harness.ReadFile(GinkgoT(), file), &patch)).To(Succeed())
	Expect(patch).To(HaveLen(1))
	Expect(patch[0].Value.CA.Secret.Key).To(Equal("ca.crt"))
	return patch[0].Value.CA.Secret.Name, patch[0].Value.ServerName
}

// redeployManager replaces the operator's Deployment by the one config/<config> renders,
// with the suite's image and one replica, and waits until it has rolled out.
func redeployManager(ctx context.Context, config string) {
	GinkgoHelper()
	objects, err := harness.Render(config)
	Expect(err).NotTo(HaveOccurred())
	rendered := harness.Find(objects, "Deployment", harness.OperatorDeployment)
	Expect(rendered).NotTo(BeNil(), "config/%s renders the operator's Deployment", config)
	var deployment appsv1.Deployment
	Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(rendered.Object, &deployment)).To(Succeed())
	deployment.Spec.Template.Spec.Containers[0].Image = operatorImage
	deployment.Spec.Replicas = ptr.To[int32](1)
	current := &appsv1.Deployment{}
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(&deployment), current)).To(Succeed())
	current.Spec = deployment.Spec
	Expect(k8sClient.Update(ctx, current)).To(Succeed())
	operator.ExpectRolledOut(ctx, 1, "config/"+config)
}
