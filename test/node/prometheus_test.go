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
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
)

// fooUnhappyFor is how long FooUnhappy waits, in this spec, before it fires: the shipped rule
// waits an hour (its promtool tests show that), which a spec cannot.
const fooUnhappyFor = "10s"

// The shipped ServiceMonitor and PrometheusRule (config/prometheus), as a Prometheus Operator
// would hand them to Prometheus: the scrape configuration the ServiceMonitor stands for, with
// the CA and server name of monitor_tls_patch.yaml, and the rule's groups as a rule file. A
// real Prometheus of the pinned version runs them in the cluster; the suite reads its API
// through the apiserver's Service proxy, as it would on any cluster.
var _ = Describe("The shipped alerts, in a Prometheus that scrapes the operator as the shipped ServiceMonitor says", func() {
	AfterEach(operator.LogsOnFailure)

	It("scrapes the manager through its Service, verifying its certificate, fires FooUnhappy for an unhappy Foo and resolves it "+
		"when its friend comes", func(ctx context.Context) {
		secretName, serverName := monitorTLS()
		caPEM := serveMetricsCertificate(ctx, secretName, serverName)
		monitoring, err := harness.Render("prometheus")
		Expect(err).NotTo(HaveOccurred())

		namespace := createNamespace(ctx, "prometheus-", map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
		account := serviceAccount(ctx, namespace, "prometheus", true)
		grantDiscovery(ctx, namespace, account)
		deployPrometheus(ctx, namespace, account, map[string]string{
			"prometheus.yml": prometheusConfig(monitoring, serverName),
			"rules.yaml":     prometheusRules(monitoring),
			"ca.crt":         string(caPEM),
		})

		By("waiting for the ServiceMonitor's one target, the manager, to be scraped")
		var targets struct {
			ActiveTargets []struct {
				Labels    map[string]string
				Health    string
				LastError string
			}
		}
		Eventually(func(g Gomega) {
			prometheusAPI(ctx, g, namespace, "targets", &targets)
			g.Expect(targets.ActiveTargets).To(HaveLen(1), "Prometheus's active targets")
			g.Expect(targets.ActiveTargets[0].LastError).To(BeEmpty(), "the last scrape's error")
			g.Expect(targets.ActiveTargets[0].Health).To(Equal("up"))
		}).WithContext(ctx).WithTimeout(2 * time.Minute).Should(Succeed())
		Expect(targets.ActiveTargets[0].Labels).To(HaveKeyWithValue("namespace", harness.OperatorNamespace))

		By("making a Foo whose friend does not exist: FooUnhappy fires for its namespace, its for shortened to " + fooUnhappyFor)
		story := createNamespace(ctx, "unhappy-", nil)
		Expect(k8sClient.Create(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: story, Name: "lonely"},
			Spec: tutorialv1.FooSpec{Name: "jack"}})).To(Succeed())
		Eventually(func(g Gomega) []string { return fooUnhappy(ctx, g, namespace, story) }).
			WithContext(ctx).WithTimeout(2*time.Minute).Should(Equal([]string{"firing"}),
			"the FooUnhappy alerts for namespace %s, by state", story)

		By("creating its friend: FooUnhappy resolves")
		runFriend(ctx, story, "jack")
		Eventually(func(g Gomega) []string { return fooUnhappy(ctx, g, namespace, story) }).
			WithContext(ctx).WithTimeout(2*time.Minute).Should(BeEmpty(), "the FooUnhappy alerts for namespace %s, by state", story)
	})
})

// prometheusConfig is the scrape configuration that the ServiceMonitor among monitoring stands
// for, as the Prometheus Operator writes it for a ServiceMonitor's one endpoint: targets
// discovered from the EndpointSlices of the operator's namespace, kept when their Service
// has the selector's labels and the endpoint's port, labelled with their namespace, Service,
// pod and (as job) Service; scraped with the endpoint's path, scheme, token and label
// honouring, and with its TLS settings as monitor_tls_patch.yaml has them (the CA is the
// Secret's, mounted from the ConfigMap beside this file).
func prometheusConfig(monitoring []*unstructured.Unstructured, serverName string) string {
	GinkgoHelper()
	var monitor struct {
		Metadata struct{ Name string }
		Spec     struct {
			Selector  struct{ MatchLabels map[string]string }
			Endpoints []struct {
				Path, Port, Scheme, BearerTokenFile string
				HonorLabels                         bool
			}
		}
	}
	object := findKind(monitoring, "ServiceMonitor")
	data, err := json.Marshal(object.Object)
	Expect(err).NotTo(HaveOccurred())
	Expect(json.Unmarshal(data, &monitor)).To(Succeed())
	Expect(monitor.Spec.Endpoints).To(HaveLen(1), "the ServiceMonitor's endpoints")
	endpoint := monitor.Spec.Endpoints[0]

	relabel := make([]map[string]any, 0, len(monitor.Spec.Selector.MatchLabels)+6)
	for name, value := range monitor.Spec.Selector.MatchLabels {
		label := labelName(name)
		relabel = append(relabel, map[string]any{"action": "keep",
			"source_labels": []string{"__meta_kubernetes_service_label_" + label, "__meta_kubernetes_service_labelpresent_" + label},
			"regex":         "(" + regexp.QuoteMeta(value) + ");true"})
	}
	relabel = append(relabel,
		map[string]any{"action": "keep", "source_labels": []string{"__meta_kubernetes_endpointslice_port_name"}, "regex": endpoint.Port},
		map[string]any{"source_labels": []string{"__meta_kubernetes_namespace"}, "target_label": "namespace"},
		map[string]any{"source_labels": []string{"__meta_kubernetes_service_name"}, "target_label": "service"},
		map[string]any{"source_labels": []string{"__meta_kubernetes_pod_name"}, "target_label": "pod"},
		map[string]any{"source_labels": []string{"__meta_kubernetes_service_name"}, "target_label": "job"},
		map[string]any{"target_label": "endpoint", "replacement": endpoint.Port})
	config := map[string]any{
		"global":     map[string]any{"scrape_interval": "5s", "evaluation_interval": "5s"},
		"rule_files": []string{"/etc/prometheus/rules.yaml"},
		"scrape_configs": []map[string]any{{
			"job_name":      fmt.Sprintf("serviceMonitor/%s/%s/0", harness.OperatorNamespace, monitor.Metadata.Name),
			"honor_labels":  endpoint.HonorLabels,
			"metrics_path":  endpoint.Path,
			"scheme":        endpoint.Scheme,
			"authorization": map[string]any{"credentials_file": endpoint.BearerTokenFile},
			"tls_config": map[string]any{"ca_file": "/etc/prometheus/ca.crt", "server_name": serverName,
				"insecure_skip_verify": false},
			"kubernetes_sd_configs": []map[string]any{{"role": "endpointslice",
				"namespaces": map[string]any{"names": []string{harness.OperatorNamespace}}}},
			"relabel_configs": relabel,
		}},
	}
	out, err := yaml.Marshal(config)
	Expect(err).NotTo(HaveOccurred())
	return string(out)
}

// prometheusRules is the rule file of the PrometheusRule among monitoring: its groups, with
// FooUnhappy's for shortened to fooUnhappyFor.
func prometheusRules(monitoring []*unstructured.Unstructured) string {
	GinkgoHelper()
	groups, found, err := unstructured.NestedSlice(findKind(monitoring, "PrometheusRule").Object, "spec", "groups")
	Expect(err).NotTo(HaveOccurred())
	Expect(found).To(BeTrue(), "the PrometheusRule's groups")
	shortened := 0
	for _, group := range groups {
		rules, _, _ := unstructured.NestedSlice(group.(map[string]any), "rules")
		for _, rule := range rules {
			if rule := rule.(map[string]any); rule["alert"] == "FooUnhappy" {
				rule["for"] = fooUnhappyFor
				shortened++
			}
		}
		Expect(unstructured.SetNestedSlice(group.(map[string]any), rules, "rules")).To(Succeed())
	}
	Expect(shortened).To(Equal(1), "the PrometheusRule's FooUnhappy rules")
	out, err := yaml.Marshal(map[string]any{"groups": groups})
	Expect(err).NotTo(HaveOccurred())
	return string(out)
}

// grantDiscovery lets the ServiceAccount discover the Services, EndpointSlices and pods of the
// operator's namespace, as a Prometheus Operator's Prometheus may.
func grantDiscovery(ctx context.Context, namespace, account string) {
	GinkgoHelper()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Namespace: harness.OperatorNamespace, GenerateName: "prometheus-discovery-"},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services", "endpoints", "pods"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list", "watch"}},
		},
	}
	Expect(k8sClient.Create(ctx, role)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, role)).To(Succeed()) })
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: harness.OperatorNamespace, GenerateName: "prometheus-discovery-"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: account}},
	}
	Expect(k8sClient.Create(ctx, binding)).To(Succeed())
	DeferCleanup(func(ctx context.Context) { Expect(k8sClient.Delete(ctx, binding)).To(Succeed()) })
}

// deployPrometheus runs Prometheus in namespace as the ServiceAccount, with the files of a
// ConfigMap in /etc/prometheus, behind a Service "prometheus" on port 9090, and waits until
// it is available.
func deployPrometheus(ctx context.Context, namespace, account string, files map[string]string) {
	GinkgoHelper()
	By("running Prometheus " + prometheusImage + " in namespace " + namespace)
	Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "prometheus"},
		Data: files})).To(Succeed())
	labels := map[string]string{"app.kubernetes.io/name": "prometheus"}
	pod := harness.RestrictedPod(namespace, "prometheus", prometheusImage, "--config.file=/etc/prometheus/prometheus.yml",
		"--storage.tsdb.path=/prometheus", "--web.listen-address=:9090")
	spec := pod.Spec
	spec.RestartPolicy = corev1.RestartPolicyAlways
	spec.ServiceAccountName = account
	spec.SecurityContext.RunAsUser = ptr.To[int64](65534)
	spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "web", ContainerPort: 9090}}
	spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
		HTTPGet: &corev1.HTTPGetAction{Path: "/-/ready", Port: intstr.FromString("web")}}}
	spec.Containers[0].VolumeMounts = []corev1.VolumeMount{
		{Name: "config", MountPath: "/etc/prometheus", ReadOnly: true}, {Name: "data", MountPath: "/prometheus"}}
	spec.Volumes = []corev1.Volume{
		{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "prometheus"}}}},
		{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	Expect(k8sClient.Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "prometheus"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}},
	})).To(Succeed())
	Expect(k8sClient.Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "prometheus"},
		Spec:       corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Name: "web", Port: 9090, TargetPort: intstr.FromString("web")}}},
	})).To(Succeed())
	Expect(resources.WaitDeploymentAvailable(ctx, clientset, namespace, "prometheus", 2*time.Minute)).To(Succeed())
}

// prometheusAPI reads /api/v1/<path> of the Prometheus in namespace, through the apiserver's
// proxy to its Service, into data (the answer's data field).
func prometheusAPI(ctx context.Context, g Gomega, namespace, path string, data any) {
	body, err := clientset.CoreV1().Services(namespace).ProxyGet("http", "prometheus", "9090", "/api/v1/"+path, nil).DoRaw(ctx)
	g.Expect(err).NotTo(HaveOccurred(), "Prometheus's /api/v1/%s", path)
	answer := struct {
		Status string
		Data   json.RawMessage
	}{}
	g.Expect(json.Unmarshal(body, &answer)).To(Succeed(), "Prometheus's /api/v1/%s: %s", path, body)
	g.Expect(answer.Status).To(Equal("success"), "Prometheus's /api/v1/%s: %s", path, body)
	g.Expect(json.Unmarshal(answer.Data, data)).To(Succeed())
}

// fooUnhappy returns the states of the FooUnhappy alerts of namespace story that the
// Prometheus in namespace holds (pending, firing; none once resolved).
func fooUnhappy(ctx context.Context, g Gomega, namespace, story string) []string {
	var alerts struct {
		Alerts []struct {
			Labels map[string]string
			State  string
		}
	}
	prometheusAPI(ctx, g, namespace, "alerts", &alerts)
	states := []string{}
	for _, alert := range alerts.Alerts {
		if alert.Labels["alertname"] == "FooUnhappy" && alert.Labels["namespace"] == story {
			states = append(states, alert.State)
		}
	}
	return states
}

// findKind returns the one object of kind among objects.
func findKind(objects []*unstructured.Unstructured, kind string) *unstructured.Unstructured {
	GinkgoHelper()
	var found []*unstructured.Unstructured
	for _, object := range objects {
		if object.GetKind() == kind {
			found = append(found, object)
		}
	}
	Expect(found).To(HaveLen(1), "the %s objects", kind)
	return found[0]
}

// labelName is a Kubernetes label's name as Prometheus's service discovery spells it.
func labelName(name string) string {
	return notInLabelName.ReplaceAllString(name, "_")
}

// notInLabelName matches what Prometheus's label names cannot hold.
var notInLabelName = regexp.MustCompile(`[^a-zA-Z0-9_]`)
