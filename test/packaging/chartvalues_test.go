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

package packaging

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
)

// The release the render tests install: as docs/install-helm.md's `helm install` does.
const (
	chartRelease   = packageName
	chartNamespace = "foo-operator-system"
)

// rendered is what `helm template` made of the chart for one set of values.
type rendered struct {
	t       *testing.T
	objects []*unstructured.Unstructured
}

// renderChart runs `helm template` on the chart of the release in the making with the values
// of valuesYAML, and fails the test if Helm refuses them.
func renderChart(t *testing.T, helm, valuesYAML string) rendered {
	t.Helper()
	output, err := helmTemplate(t, helm, valuesYAML)
	if err != nil {
		t.Fatalf("helm template with\n%s\n%v", valuesYAML, err)
	}
	objects, err := resources.Decode(bytes.NewReader(output))
	if err != nil {
		t.Fatalf("decoding what helm template rendered: %v", err)
	}
	return rendered{t: t, objects: objects}
}

// helmTemplate runs `helm template` with the values of valuesYAML, and returns what it wrote,
// or an error holding what it said on stderr.
func helmTemplate(t *testing.T, helm, valuesYAML string) ([]byte, error) {
	t.Helper()
	// Not under t.TempDir(), whose name holds the test's: Helm splits --values at commas.
	dir, err := os.MkdirTemp("", "chart-values")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	valuesFile := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(valuesFile, []byte(valuesYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	template := exec.Command(helm, "template", chartRelease, chartDir, "--namespace", chartNamespace, "--values", valuesFile)
	var stderr bytes.Buffer
	template.Stderr = &stderr
	output, err := template.Output()
	if err != nil {
		return nil, &helmError{err: err, stderr: stderr.String()}
	}
	return output, nil
}

type helmError struct {
	err    error
	stderr string
}

func (e *helmError) Error() string { return e.err.Error() + ": " + e.stderr }

// find returns the object of kind and name (and namespace, when given), or nil.
func (r rendered) find(kind, name string, namespace ...string) *unstructured.Unstructured {
	for _, object := range r.objects {
		if object.GetKind() == kind && object.GetName() == name && (len(namespace) == 0 || object.GetNamespace() == namespace[0]) {
			return object
		}
	}
	return nil
}

// into converts the object of kind and name into typed, failing the test if there is none.
func (r rendered) into(kind, name string, typed any) {
	r.t.Helper()
	object := r.find(kind, name)
	if object == nil {
		r.t.Fatalf("no %s %s among %v", kind, name, r.names())
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, typed); err != nil {
		r.t.Fatal(err)
	}
}

func (r rendered) names() []string {
	names := make([]string, 0, len(r.objects))
	for _, object := range r.objects {
		names = append(names, object.GetKind()+" "+object.GetNamespace()+"/"+object.GetName())
	}
	return names
}

func (r rendered) deployment() *appsv1.Deployment {
	r.t.Helper()
	deployment := &appsv1.Deployment{}
	r.into("Deployment", "foo-operator-controller-manager", deployment)
	return deployment
}

func (r rendered) manager() corev1.Container {
	r.t.Helper()
	return r.deployment().Spec.Template.Spec.Containers[0]
}

// selftest is the pod `helm test` runs.
func (r rendered) selftest() *corev1.Pod {
	r.t.Helper()
	pod := &corev1.Pod{}
	r.into("Pod", "foo-operator-selftest", pod)
	return pod
}

// expectSelftestIn checks that `helm test` runs the manager's image's self-test in namespace
// (empty: one of the test's own), with a role there (or a ClusterRole) that lets it make
// Foos and pods, and namespaces only when it makes its own.
func (r rendered) expectSelftestIn(t *testing.T, namespace string) {
	t.Helper()
	pod := r.selftest()
	test := pod.Spec.Containers[0]
	expect(t, "the self-test's image", test.Image, r.manager().Image)
	expect(t, "the self-test's command", test.Command, []string{"/manager", "selftest"})
	wantArgs := []string{"--friend-image=" + r.manager().Image, "--timeout=1m"}
	if namespace != "" {
		wantArgs = append(wantArgs, "--namespace="+namespace)
	}
	expect(t, "the self-test's arguments", test.Args, wantArgs)
	expect(t, "the self-test's hook", pod.Annotations["helm.sh/hook"], "test")
	kind, wantRules := "ClusterRole", "foos: create, get, delete; pods: create, delete; namespaces: create, delete"
	if namespace != "" {
		kind, wantRules = "Role", "foos: create, get, delete; pods: create, delete"
	}
	role := &rbacv1.Role{}
	r.into(kind, "foo-operator-selftest", role)
	if object := r.find(kind, "foo-operator-selftest"); object.GetNamespace() != namespace {
		t.Errorf("the self-test's %s is in namespace %q, want %q", kind, object.GetNamespace(), namespace)
	}
	rules := make([]string, 0, len(role.Rules))
	for _, rule := range role.Rules {
		rules = append(rules, strings.Join(rule.Resources, ",")+": "+strings.Join(rule.Verbs, ", "))
	}
	expect(t, "the self-test's "+kind, strings.Join(rules, "; "), wantRules)
	binding := &rbacv1.RoleBinding{}
	r.into(kind+"Binding", "foo-operator-selftest", binding)
	expect(t, "the self-test's binding's subject", binding.Subjects[0].Name, pod.Spec.ServiceAccountName)
}

// expectSelectsManagerAlone checks that selector matches the manager's pods and not the
// self-test's, which carry the release's labels too.
func (r rendered) expectSelectsManagerAlone(t *testing.T, what string, selector map[string]string) {
	t.Helper()
	if !labels.SelectorFromSet(selector).Matches(labels.Set(r.deployment().Spec.Template.Labels)) {
		t.Errorf("%s (%v) does not select the manager's pods (%v)", what, selector, r.deployment().Spec.Template.Labels)
	}
	if labels.SelectorFromSet(selector).Matches(labels.Set(r.selftest().Labels)) {
		t.Errorf("%s (%v) selects the self-test's pod (%v)", what, selector, r.selftest().Labels)
	}
}

// expect reports got when it is not want, as YAML.
func expect(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		gotYAML, _ := yaml.Marshal(got)
		wantYAML, _ := yaml.Marshal(want)
		t.Errorf("%s:\n%s\nwant:\n%s", what, gotYAML, wantYAML)
	}
}

// port returns the container's port of name, or 0.
func port(container corev1.Container, name string) int32 {
	for _, port := range container.Ports {
		if port.Name == name {
			return port.ContainerPort
		}
	}
	return 0
}

// chartCase is a set of values and what the manager, as Kubernetes runs what was rendered,
// must then be given: covers names the values it sets.
type chartCase struct {
	name   string
	values string
	covers []string
	check  func(t *testing.T, r rendered)
}

var chartCases = []chartCase{
	{
		name: "the defaults", covers: []string{"manager.terminationGracePeriodSeconds", "manager.resources",
			"manager.podSecurityContext", "manager.securityContext", "manager.image.pullPolicy"},
		check: func(t *testing.T, r rendered) {
			manager := r.manager()
			expect(t, "the image", manager.Image, "example.com/foo-operator:v0.3.0")
			if _, ok := envVar(manager, "WATCH_NAMESPACE"); ok {
				t.Error("WATCH_NAMESPACE is set: the manager would not watch every namespace")
			}
			expect(t, "the limits", manager.Resources.Limits.Memory().String(), "256Mi")
			expect(t, "the pod's runAsNonRoot", *r.deployment().Spec.Template.Spec.SecurityContext.RunAsNonRoot, true)
			expect(t, "the root filesystem read-only", *manager.SecurityContext.ReadOnlyRootFilesystem, true)
			expect(t, "the grace period", *r.deployment().Spec.Template.Spec.TerminationGracePeriodSeconds, int64(10))
			expect(t, "the pull policy", manager.ImagePullPolicy, corev1.PullIfNotPresent)
			if r.find("ClusterRole", "foo-operator-manager-role") == nil {
				t.Error("no ClusterRole for the manager")
			}
			r.expectSelftestIn(t, "")
			service := &corev1.Service{}
			r.into("Service", "foo-operator-controller-manager-metrics-service", service)
			r.expectSelectsManagerAlone(t, "the metrics Service's selector", service.Spec.Selector)
		},
	},
	{
		name:   "namespaces to watch, with namespaced RBAC",
		values: "watchNamespaces: [team-a, team-b]\nrbac: {namespaced: true}\n",
		covers: []string{"watchNamespaces", "rbac.namespaced"},
		check: func(t *testing.T, r rendered) {
			value, _ := envVar(r.manager(), "WATCH_NAMESPACE")
			expect(t, "WATCH_NAMESPACE", value, "team-a,team-b")
			for _, namespace := range []string{"team-a", "team-b"} {
				role, binding := r.find("Role", "foo-operator-manager-role", namespace), r.find("RoleBinding", "foo-operator-manager-rolebinding", namespace)
				if role == nil || binding == nil {
					t.Errorf("no Role and RoleBinding for the manager in %s", namespace)
				}
			}
			// What stays cluster-wide: the reviews that guard the metrics endpoint, and the roles
			// users get over Foos, which grant the manager nothing.
			for _, object := range r.objects {
				if object.GetKind() == "ClusterRoleBinding" && object.GetName() != "foo-operator-metrics-auth-rolebinding" {
					t.Errorf("ClusterRoleBinding %s grants cluster-wide", object.GetName())
				}
			}
			if r.find("ClusterRole", "foo-operator-manager-role") != nil {
				t.Error("the manager still has a ClusterRole")
			}
			// The elector's Event of the Lease, in the release's namespace, which no Role of the
			// watched namespaces covers.
			election := &rbacv1.Role{}
			r.into("Role", "foo-operator-leader-election-role", election)
			if !slices.ContainsFunc(election.Rules, func(rule rbacv1.PolicyRule) bool {
				return slices.Contains(rule.Resources, "events") && slices.Contains(rule.Verbs, "create")
			}) {
				t.Errorf("the Lease's Role lets the elector record no Event: %v", election.Rules)
			}
			r.expectSelftestIn(t, "team-a")
		},
	},
	{
		name:   "namespaces to watch, with cluster RBAC",
		values: "watchNamespaces: [team-a]\n",
		check: func(t *testing.T, r rendered) {
			value, _ := envVar(r.manager(), "WATCH_NAMESPACE")
			expect(t, "WATCH_NAMESPACE", value, "team-a")
			if r.find("ClusterRoleBinding", "foo-operator-manager-rolebinding") == nil {
				t.Error("no ClusterRoleBinding for the manager")
			}
			// A namespace the self-test made would not be watched.
			r.expectSelftestIn(t, "team-a")
		},
	},
	{
		name:   "an image by tag",
		values: "manager: {image: {repository: registry.example/org/foo-operator, tag: v9.9.9, pullPolicy: Always}}\n",
		covers: []string{"manager.image.repository", "manager.image.tag"},
		check: func(t *testing.T, r rendered) {
			expect(t, "the image", r.manager().Image, "registry.example/org/foo-operator:v9.9.9")
			expect(t, "the pull policy", r.manager().ImagePullPolicy, corev1.PullAlways)
		},
	},
	{
		name: "an image by digest",
		values: "manager: {image: {repository: registry.example/org/foo-operator, tag: v9.9.9, " +
			"digest: 'sha256:" + strings.Repeat("ab", 32) + "'}}\n",
		covers: []string{"manager.image.digest"},
		check: func(t *testing.T, r rendered) {
			expect(t, "the image", r.manager().Image, "registry.example/org/foo-operator@sha256:"+strings.Repeat("ab", 32))
			expect(t, "the self-test's image", r.selftest().Spec.Containers[0].Image, r.manager().Image)
		},
	},
	{
		name:   "replicas, leader election, concurrency",
		values: "manager: {replicas: 3, maxConcurrentReconciles: 2}\n",
		covers: []string{"manager.replicas", "manager.maxConcurrentReconciles", "manager.leaderElection.enabled"},
		check: func(t *testing.T, r rendered) {
			expect(t, "the replicas", *r.deployment().Spec.Replicas, int32(3))
			expectArgs(t, r.manager(), "--leader-elect", "--max-concurrent-reconciles=2")
			if r.find("Role", "foo-operator-leader-election-role") == nil {
				t.Error("no Role for the Lease")
			}
		},
	},
	{
		name:   "no leader election",
		values: "manager: {leaderElection: {enabled: false}}\n",
		check: func(t *testing.T, r rendered) {
			if slices.Contains(r.manager().Args, "--leader-elect") {
				t.Error("the manager still takes a Lease")
			}
			if r.find("Role", "foo-operator-leader-election-role") != nil {
				t.Error("the Lease's Role is still made")
			}
		},
	},
	{
		name:   "both ports moved",
		values: "manager: {healthProbe: {port: 9090}}\nmetrics: {port: 9443}\nnetworkPolicy: {enabled: true}\n",
		covers: []string{"manager.healthProbe.port", "metrics.port", "networkPolicy.enabled"},
		check: func(t *testing.T, r rendered) {
			manager := r.manager()
			expectArgs(t, manager, "--health-probe-bind-address=:9090", "--metrics-bind-address=:9443")
			expect(t, "the probes' port", port(manager, "probes"), int32(9090))
			expect(t, "the liveness probe's port", manager.LivenessProbe.HTTPGet.Port.String(), "probes")
			expect(t, "the readiness probe's port", manager.ReadinessProbe.HTTPGet.Port.String(), "probes")
			expect(t, "the metrics port", port(manager, "https"), int32(9443))
			service := &corev1.Service{}
			r.into("Service", "foo-operator-controller-manager-metrics-service", service)
			expect(t, "the Service's port", service.Spec.Ports[0].Port, int32(9443))
			expect(t, "the Service's target", service.Spec.Ports[0].TargetPort.String(), "https")
			policy := &networkingv1.NetworkPolicy{}
			r.into("NetworkPolicy", "foo-operator-allow-metrics-traffic", policy)
			expect(t, "the port the NetworkPolicy admits", policy.Spec.Ingress[0].Ports[0].Port.IntValue(), 9443)
			r.expectSelectsManagerAlone(t, "the pods the NetworkPolicy guards", policy.Spec.PodSelector.MatchLabels)
		},
	},
	{
		name:   "metrics over plain HTTP",
		values: "metrics: {secure: false}\n",
		covers: []string{"metrics.secure"},
		check: func(t *testing.T, r rendered) {
			expectArgs(t, r.manager(), "--metrics-secure=false")
			expect(t, "the metrics port", port(r.manager(), "http"), int32(8443))
			service := &corev1.Service{}
			r.into("Service", "foo-operator-controller-manager-metrics-service", service)
			expect(t, "the Service's target", service.Spec.Ports[0].TargetPort.String(), "http")
			if r.find("ClusterRole", "foo-operator-metrics-auth-role") != nil {
				t.Error("the reviews of a secure endpoint are still granted")
			}
		},
	},
	{
		name:   "no metrics",
		values: "metrics: {enabled: false}\n",
		covers: []string{"metrics.enabled"},
		check: func(t *testing.T, r rendered) {
			expectArgs(t, r.manager(), "--metrics-bind-address=0")
			expect(t, "the metrics port", port(r.manager(), "https"), int32(0))
			if r.find("Service", "foo-operator-controller-manager-metrics-service") != nil {
				t.Error("the metrics Service is still made")
			}
		},
	},
	{
		name: "a metrics certificate from a Secret, scraped by a ServiceMonitor",
		values: "metrics: {certSecret: metrics-tls}\n" +
			"prometheus: {enabled: true, labels: {release: prometheus}, annotations: {team: a}}\n",
		covers: []string{"metrics.certSecret", "prometheus.enabled", "prometheus.labels", "prometheus.annotations"},
		check: func(t *testing.T, r rendered) {
			expectArgs(t, r.manager(), "--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs")
			volumes := r.deployment().Spec.Template.Spec.Volumes
			if len(volumes) != 1 || volumes[0].Secret == nil || volumes[0].Secret.SecretName != "metrics-tls" {
				t.Errorf("the pod's volumes: %v, want the Secret metrics-tls", volumes)
			}
			if mounts := r.manager().VolumeMounts; len(mounts) != 1 || mounts[0].MountPath != "/tmp/k8s-metrics-server/metrics-certs" {
				t.Errorf("the manager's mounts: %v", mounts)
			}
			monitor := r.find("ServiceMonitor", "foo-operator-controller-manager-metrics-monitor")
			if monitor == nil {
				t.Fatal("no ServiceMonitor")
			}
			endpoints, _, _ := unstructured.NestedSlice(monitor.Object, "spec", "endpoints")
			tlsConfig, _, _ := unstructured.NestedMap(endpoints[0].(map[string]any), "tlsConfig")
			expect(t, "the ServiceMonitor's TLS", tlsConfig, map[string]any{
				"ca":                 map[string]any{"secret": map[string]any{"name": "metrics-tls", "key": "ca.crt"}},
				"serverName":         "foo-operator-controller-manager-metrics-service.foo-operator-system.svc",
				"insecureSkipVerify": false,
			})
			expect(t, "the ServiceMonitor's release label", monitor.GetLabels()["release"], "prometheus")
			expect(t, "the ServiceMonitor's annotations", monitor.GetAnnotations(), map[string]string{"team": "a"})
		},
	},
	{
		name: "where and how the pod is scheduled",
		values: `manager:
  nodeSelector: {disk: ssd}
  tolerations: [{key: dedicated, operator: Equal, value: operators, effect: NoSchedule}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - {weight: 1, podAffinityTerm: {topologyKey: zone, labelSelector: {matchLabels: {control-plane: controller-manager}}}}
  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]
  priorityClassName: system-cluster-critical
  imagePullSecrets: [{name: pull-secret}]
  strategy: {type: Recreate}
`,
		covers: []string{"manager.nodeSelector", "manager.tolerations", "manager.affinity", "manager.topologySpreadConstraints",
			"manager.priorityClassName", "manager.imagePullSecrets", "manager.strategy"},
		check: func(t *testing.T, r rendered) {
			pod := r.deployment().Spec.Template.Spec
			expect(t, "the nodeSelector", pod.NodeSelector, map[string]string{"disk": "ssd"})
			expect(t, "the tolerations", pod.Tolerations, []corev1.Toleration{
				{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "operators", Effect: corev1.TaintEffectNoSchedule}})
			terms := pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			expect(t, "the affinity's zone", terms[0].MatchExpressions[0].Key, "zone")
			expect(t, "the spread's key", pod.TopologySpreadConstraints[0].TopologyKey, "zone")
			expect(t, "the priority class", pod.PriorityClassName, "system-cluster-critical")
			expect(t, "the pull secrets", pod.ImagePullSecrets, []corev1.LocalObjectReference{{Name: "pull-secret"}})
			expect(t, "the strategy", r.deployment().Spec.Strategy.Type, appsv1.RecreateDeploymentStrategyType)
			// The self-test runs where the manager may, with its pull secrets.
			selftest := r.selftest().Spec
			expect(t, "the self-test's nodeSelector", selftest.NodeSelector, pod.NodeSelector)
			expect(t, "the self-test's tolerations", selftest.Tolerations, pod.Tolerations)
			// It runs the manager's image, so where that image runs; but not among the manager's pods.
			expect(t, "the self-test's affinity", selftest.Affinity, &corev1.Affinity{NodeAffinity: pod.Affinity.NodeAffinity})
			expect(t, "the manager's pod anti-affinity's key", pod.Affinity.PodAntiAffinity.
				PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.TopologyKey, "zone")
			account := &corev1.ServiceAccount{}
			r.into("ServiceAccount", "foo-operator-selftest", account)
			expect(t, "the self-test's pull secrets", account.ImagePullSecrets, pod.ImagePullSecrets)
		},
	},
	{
		name: "labels and annotations of the Deployment and its pods",
		values: "manager: {labels: {team: a}, annotations: {owner: a}, pod: {labels: {tier: ops}, annotations: {scrape: 'no'}}}\n" +
			"serviceAccount: {annotations: {iam: role-a}}\n",
		covers: []string{"manager.labels", "manager.annotations", "manager.pod.labels", "manager.pod.annotations", "serviceAccount.annotations"},
		check: func(t *testing.T, r rendered) {
			deployment := r.deployment()
			expect(t, "the Deployment's team label", deployment.Labels["team"], "a")
			expect(t, "the Deployment's annotations", deployment.Annotations, map[string]string{"owner": "a"})
			expect(t, "the pods' tier label", deployment.Spec.Template.Labels["tier"], "ops")
			expect(t, "the pods' scrape annotation", deployment.Spec.Template.Annotations["scrape"], "no")
			account := &corev1.ServiceAccount{}
			r.into("ServiceAccount", "foo-operator-controller-manager", account)
			expect(t, "the ServiceAccount's annotations", account.Annotations, map[string]string{"iam": "role-a"})
		},
	},
	{
		name:   "a ServiceAccount of the user's",
		values: "serviceAccount: {create: false, name: operators}\n",
		covers: []string{"serviceAccount.create", "serviceAccount.name"},
		check: func(t *testing.T, r rendered) {
			if r.find("ServiceAccount", "foo-operator-controller-manager") != nil {
				t.Error("the chart still makes its ServiceAccount")
			}
			expect(t, "the pod's ServiceAccount", r.deployment().Spec.Template.Spec.ServiceAccountName, "operators")
			binding := &rbacv1.ClusterRoleBinding{}
			r.into("ClusterRoleBinding", "foo-operator-manager-rolebinding", binding)
			expect(t, "the manager's binding's subject", binding.Subjects[0].Name, "operators")
		},
	},
	{
		name:   "no CRD, no helper roles",
		values: "crd: {enabled: false}\nrbac: {helpers: {enabled: false}}\n",
		covers: []string{"crd.enabled", "rbac.helpers.enabled"},
		check: func(t *testing.T, r rendered) {
			for _, object := range r.objects {
				if object.GetKind() == "CustomResourceDefinition" || strings.HasPrefix(object.GetName(), "foo-operator-foo-") {
					t.Errorf("%s %s is still made", object.GetKind(), object.GetName())
				}
			}
		},
	},
	{
		name:   "a CRD that uninstall removes",
		values: "crd: {keep: false}\n",
		covers: []string{"crd.keep"},
		check: func(t *testing.T, r rendered) {
			crd := r.find("CustomResourceDefinition", "foos.tutorial.my.domain")
			if crd == nil {
				t.Fatal("no CRD")
			}
			if _, kept := crd.GetAnnotations()["helm.sh/resource-policy"]; kept {
				t.Error("the CRD is still kept on uninstall")
			}
		},
	},
	{
		name:   "names overridden",
		values: "nameOverride: friends\n",
		covers: []string{"nameOverride"},
		check: func(t *testing.T, r rendered) {
			// The release's name no longer holds the chart's: every name is both.
			deployment := &appsv1.Deployment{}
			r.into("Deployment", "foo-operator-friends-controller-manager", deployment)
			expect(t, "the pods' app label", deployment.Spec.Selector.MatchLabels["app.kubernetes.io/name"], "friends")
		},
	},
	{
		name:   "a full name of the user's",
		values: "fullnameOverride: ops\n",
		covers: []string{"fullnameOverride"},
		check: func(t *testing.T, r rendered) {
			deployment := r.find("Deployment", "ops-controller-manager")
			if deployment == nil {
				t.Fatalf("no Deployment ops-controller-manager among %v", r.names())
			}
			account := &corev1.ServiceAccount{}
			r.into("ServiceAccount", "ops-controller-manager", account)
		},
	},
}

// envVar returns the value the container is given for variable name, and whether it is.
func envVar(container corev1.Container, name string) (string, bool) {
	for _, variable := range container.Env {
		if variable.Name == name {
			return variable.Value, true
		}
	}
	return "", false
}

// expectArgs reports each of args the container is not given.
func expectArgs(t *testing.T, container corev1.Container, args ...string) {
	t.Helper()
	for _, arg := range args {
		if !slices.Contains(container.Args, arg) {
			t.Errorf("the manager is not given %s: %v", arg, container.Args)
		}
	}
}

// TestEveryChartValueReachesTheManager renders the chart with each case's values and checks
// what Kubernetes is then asked to run; and that every value of the schema is set by a case,
// so that a value added without a check fails here.
func TestEveryChartValueReachesTheManager(t *testing.T) {
	helm := requireEnv(t, "HELM")
	covered := map[string]bool{}
	for _, tc := range chartCases {
		for _, key := range tc.covers {
			covered[key] = true
		}
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, renderChart(t, helm, tc.values))
		})
	}
	for _, key := range schemaLeaves(t) {
		if !covered[key] {
			t.Errorf("value %s is set by no case of chartCases: add one that checks what it does", key)
		}
	}
}

// schemaLeaves lists the keys of every value values.schema.json describes, down to the values
// that are not objects with properties of their own; global, Helm's own, aside.
func schemaLeaves(t *testing.T) []string {
	t.Helper()
	type node struct {
		Properties map[string]*node `json:"properties"`
	}
	var root node
	if err := json.Unmarshal(harness.ReadFile(t, filepath.Join(chartDir, "values.schema.json")), &root); err != nil {
		t.Fatal(err)
	}
	var leaves []string
	var walk func(prefix string, n *node)
	walk = func(prefix string, n *node) {
		for name, property := range n.Properties {
			if len(property.Properties) > 0 {
				walk(prefix+name+".", property)
			} else if prefix+name != "global" {
				leaves = append(leaves, prefix+name)
			}
		}
	}
	walk("", &root)
	slices.Sort(leaves)
	return leaves
}

// TestChartRefusesValuesItCannotRun checks that values the manager could not run with, or that
// are mistyped, are refused by helm template (as by install and upgrade, which render first),
// with a message that names the value.
func TestChartRefusesValuesItCannotRun(t *testing.T) {
	helms := map[string]string{"helm": requireEnv(t, "HELM"), "helm 3": requireEnv(t, "HELM3")}
	for name, tc := range map[string]struct{ values, want string }{
		"a key the chart does not know":     {"manager: {replica: 2}\n", "replica"},
		"a number that is a word":           {"manager: {replicas: abc}\n", "replicas"},
		"a port out of range":               {"metrics: {port: 70000}\n", "port"},
		"a namespace that cannot be one":    {"watchNamespaces: [Team_A]\n", "watchNamespaces"},
		"a digest that is not one":          {"manager: {image: {digest: latest}}\n", "digest"},
		"namespaced RBAC, no namespaces":    {"rbac: {namespaced: true}\n", "list them in watchNamespaces"},
		"replicas with no leader election":  {"manager: {replicas: 2, leaderElection: {enabled: false}}\n", "manager.leaderElection.enabled=true"},
		"one port for metrics and probes":   {"metrics: {port: 8081}\n", "both 8081"},
		"a ServiceMonitor without metrics":  {"metrics: {enabled: false}\nprometheus: {enabled: true}\n", "needs metrics.enabled=true"},
		"a NetworkPolicy without metrics":   {"metrics: {enabled: false}\nnetworkPolicy: {enabled: true}\n", "needs metrics.enabled=true"},
		"no ServiceAccount, and none named": {"serviceAccount: {create: false}\n", "serviceAccount.name"},
	} {
		for helmName, helm := range helms {
			t.Run(helmName+"/"+name, func(t *testing.T) {
				_, err := helmTemplate(t, helm, tc.values)
				if err == nil {
					t.Fatalf("%s accepted\n%s", helmName, tc.values)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s refused\n%s\nwith %v\nwhich does not name %q", helmName, tc.values, err, tc.want)
				}
			})
		}
	}
}

// TestChartLintsUnderBothHelms runs `helm lint --strict`, which also checks values.yaml against
// the schema, with Helm 4 and Helm 3.
func TestChartLintsUnderBothHelms(t *testing.T) {
	for _, variable := range []string{"HELM", "HELM3"} {
		helm := requireEnv(t, variable)
		if output, err := exec.Command(helm, "lint", "--strict", chartDir).CombinedOutput(); err != nil {
			t.Errorf("%s lint --strict: %v\n%s", variable, err, output)
		}
	}
}
