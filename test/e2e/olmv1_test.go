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
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/internal/controller"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

// OLM v1's kinds, read as unstructured objects: the suite applies them as YAML, as users do.
var (
	clusterExtensionKind = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterExtension"}
	clusterCatalogKind   = schema.GroupVersionKind{Group: "olm.operatorframework.io", Version: "v1", Kind: "ClusterCatalog"}
)

// olmv1Page is the page that tells users how to install with OLM v1 (the OLM v1 page): the
// suite applies its YAML.
const olmv1Page = "docs/install-olm-v1.md"

// The names of the OLM v1 page's installation YAML.
const (
	olmv1Extension = packageName
	olmv1Catalog   = "foo-operator-catalog"
	// olmv1Installer is the ServiceAccount operator-controller installs the bundle as.
	olmv1Installer = "foo-operator-installer"
)

// catalogdPollTimeout bounds how long a newly published catalog image takes to be installed:
// catalogd looks at the tag once a minute (the shortest poll interval it allows), then
// operator-controller resolves and upgrades.
const catalogdPollTimeout = 4 * time.Minute

func olmv1Journey() {
	const (
		// The OLM v1 page's namespace for the operator.
		operatorNamespace = packageName
		storyNamespace    = "olmv1-story"
		ownNamespace      = "olmv1-own"
	)
	var (
		published *testCatalog
		// catalogImage is the tag the ClusterCatalog polls; each release is published there.
		catalogImage string
		// The story's Foos, as they are before every upgrade.
		stories map[string]*tutorialv1.Foo
	)
	// upgraded is the ClusterExtension's upgrade to version, whose bundle names the manager
	// image as published.
	upgraded := func(version string) upgrade {
		return upgrade{operatorNamespace: operatorNamespace, storyNamespace: storyNamespace,
			version: version, image: managerImage(version), stories: stories}
	}

	BeforeAll(func(ctx context.Context) {
		ensureOLMv1(ctx)
		catalogImage = imageTagBase + "-catalog-olmv1:latest"
		var err error
		published, err = loadPublishedCatalog()
		Expect(err).NotTo(HaveOccurred())
		createNamespaces(ctx, newNamespace(storyNamespace, nil))
		// As the OLM v1 page's uninstall: the extension, the catalog, the installer's binding, and the
		// namespace the OLM v1 page's YAML made (the installer's ServiceAccount with it).
		DeferCleanup(func(ctx context.Context) {
			kubectl(ctx, "delete", "--ignore-not-found", "clusterextension/"+olmv1Extension, "clustercatalog/"+olmv1Catalog,
				"clusterrolebinding/"+olmv1Installer, "clusterrole/"+olmv1Installer,
				"clusterrolebinding/"+olmv1Installer+"-roles", "clusterrole/"+olmv1Installer+"-roles")
			kubectl(ctx, "delete", "--ignore-not-found", "--wait", "namespace/"+operatorNamespace)
			deleteCRD(ctx)
		})
	}, NodeTimeout(10*time.Minute))

	It("installs nothing while the OLM v1 page's installer roles lack any one rule, and names what is missing", func(ctx context.Context) {
		upTo2, err := published.upTo("0.2.0")
		Expect(err).NotTo(HaveOccurred())
		publishCatalog(ctx, upTo2, catalogImage)
		if !preflightPermissionsOn(ctx) {
			Skip("operator-controller's alpha PreflightPermissions feature gate is off on this cluster: without it, " +
				"a ClusterExtension does not say which permission its ServiceAccount lacks")
		}
		expectEachInstallerRuleNeeded(ctx, readmeOLMv1YAML(catalogImage, "0.1.0"), operatorNamespace)
	}, SpecTimeout(10*time.Minute))

	It("installs 0.1.0, pinned in the OLM v1 page's ClusterExtension, from its ClusterCatalog; the operator plays the story", func(ctx context.Context) {
		By("applying the OLM v1 page's ClusterCatalog, Namespace, ServiceAccount, ClusterRoleBinding and ClusterExtension")
		kubectl(ctx, "apply", "-f", readmeOLMv1YAML(catalogImage, "0.1.0"))
		expectCatalogServing(ctx)
		expectExtensionInstalled(ctx, "0.1.0", installTimeout)
		expectCRDEstablished(ctx)
		expectManagerRunning(ctx, operatorNamespace, managerImage("0.1.0"))
		playStory(ctx, operatorNamespace, storyNamespace)
		stories = foosIn(ctx, storyNamespace)
	}, SpecTimeout(10*time.Minute))

	It("upgrades to 0.2.0 when the ClusterExtension's version range is widened, keeping the Foos", func(ctx context.Context) {
		setExtensionVersion(ctx, ">=0.1.0")
		expectExtensionInstalled(ctx, "0.2.0", installTimeout)
		expectKeptAcrossUpgrade(ctx, upgraded("0.2.0"))
	}, SpecTimeout(10*time.Minute))

	It("upgrades to 0.3.0 once catalogd polls a newer catalog image under the same tag, keeping the Foos", func(ctx context.Context) {
		upTo3, err := published.upTo("0.3.0")
		Expect(err).NotTo(HaveOccurred())
		publishCatalog(ctx, upTo3, catalogImage)
		expectExtensionInstalled(ctx, "0.3.0", catalogdPollTimeout)
		expectKeptAcrossUpgrade(ctx, upgraded("0.3.0"))
	}, SpecTimeout(10*time.Minute))

	It("runs without an OperatorCondition: says so once, and warns on a Foo that asks to hold upgrades", func(ctx context.Context) {
		pod, err := installedOperator(operatorNamespace).Pod(ctx)
		Expect(err).NotTo(HaveOccurred())
		var conditions operatorsv2.OperatorConditionList
		// On a cluster without OLM v0 the kind itself does not exist: there is none either.
		if err := k8sClient.List(ctx, &conditions, client.InNamespace(operatorNamespace)); !meta.IsNoMatchError(err) {
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(names(conditions.Items)).To(BeEmpty(), "OLM v1 creates no OperatorCondition")
		Expect(pod.Spec.Containers[0].Env).NotTo(ContainElement(HaveField("Name", "OPERATOR_CONDITION_NAME")))

		By("asking to hold upgrades on foo-02")
		patchHold(ctx, storyNamespace, "e2e: keep the current release")
		Eventually(func(g Gomega) {
			var events corev1.EventList
			g.Expect(k8sClient.List(ctx, &events, client.InNamespace(storyNamespace))).To(Succeed())
			var seen []string
			for _, event := range events.Items {
				if event.InvolvedObject.Name != "foo-02" {
					continue
				}
				seen = append(seen, event.Type+" "+event.Reason)
				if event.Type == corev1.EventTypeWarning && event.Reason == controller.UpgradeHoldUnavailableReason {
					AddReportEntry("What a Foo that asks to hold upgrades is told under OLM v1", event.Message)
					return
				}
			}
			g.Expect(seen).To(ContainElement("Warning "+controller.UpgradeHoldUnavailableReason), "the Events of foo-02")
		}).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(Succeed())
		patchHold(ctx, storyNamespace, "")

		By("reading the manager's log: the missing OperatorCondition is told once, and the manager never restarted")
		log, err := clientset.CoreV1().Pods(operatorNamespace).GetLogs(pod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(log), "Upgrade holds are not available")).To(Equal(1), "the manager's log:\n%s", shorten(string(log)))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		Expect(pod.Status.ContainerStatuses).To(ConsistOf(HaveField("RestartCount", BeZero())))
		expectStillFollows(ctx, operatorNamespace, storyNamespace)
	}, SpecTimeout(5*time.Minute))

	It("uninstalls when the ClusterExtension is deleted: the operator, its CRD and every Foo go", func(ctx context.Context) {
		kubectl(ctx, "delete", "clusterextension", olmv1Extension)
		suite.ExpectGone(ctx, k8sClient,
			&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: operatorNamespace, Name: operatorDeployment}}, installTimeout)
		suite.ExpectGone(ctx, k8sClient,
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: operatorNamespace, Name: operatorServiceAccount}}, installTimeout)
		// OLM v1 installs the bundle as a Helm release owned by the ClusterExtension, CRD
		// included: the garbage collector deletes the CRD, and the Foos with it.
		expectUninstalledAsDocumented(ctx, harness.WayOLMv1, "", nil)
	}, SpecTimeout(10*time.Minute))

	It("upgrades 0.1.0 directly to 0.3.0, as 0.3.0's skipRange allows", func(ctx context.Context) {
		kubectl(ctx, "apply", "-f", readmeOLMv1YAML(catalogImage, "0.1.0"))
		expectExtensionInstalled(ctx, "0.1.0", installTimeout)
		expectManagerRunning(ctx, operatorNamespace, managerImage("0.1.0"))
		setExtensionVersion(ctx, "0.3.0")
		expectExtensionInstalled(ctx, "0.3.0", installTimeout)
		expectManagerRunning(ctx, operatorNamespace, managerImage("0.3.0"))
		Expect(deployedRevision(ctx)).To(Equal("2"), "the revision of %s's Helm release: 0.1.0 was the first, 0.3.0 the next", olmv1Extension)
		kubectl(ctx, "delete", "clusterextension", olmv1Extension)
		suite.ExpectGone(ctx, k8sClient, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: fooCRD}}, installTimeout)
	}, SpecTimeout(10*time.Minute))

	It("installs in OwnNamespace mode with the release's alpha feature gate: the operator watches only its namespace", func(ctx context.Context) {
		createNamespaces(ctx, newNamespace(ownNamespace, nil))
		manifest := readmeOLMv1YAML(catalogImage, "0.3.0")
		data, err := os.ReadFile(manifest)
		Expect(err).NotTo(HaveOccurred())
		// The OLM v1 page's namespace becomes ownNamespace, and the ClusterExtension asks to watch it.
		own := strings.ReplaceAll(string(data), "namespace: "+operatorNamespace, "namespace: "+ownNamespace)
		own = strings.Replace(own, "kind: ClusterExtension\nmetadata:\n  name: "+olmv1Extension+"\n",
			"kind: ClusterExtension\nmetadata:\n  name: "+olmv1Extension+"\n"+
				"  annotations:\n    olm.operatorframework.io/watch-namespace: "+ownNamespace+"\n", 1)
		Expect(own).To(ContainSubstring("watch-namespace"), "the OLM v1 page's ClusterExtension starts as the suite expects")
		// What the OLM v1 page adds for OwnNamespace: its Roles, which OLM v1 makes there.
		own += fmt.Sprintf(ownNamespaceInstallerRBAC, olmv1Installer, ownNamespace)
		ownManifest := filepath.Join(workDir, "olmv1-own.yaml")
		Expect(os.WriteFile(ownManifest, []byte(own), 0o644)).To(Succeed())
		kubectl(ctx, "apply", "-f", ownManifest)
		expectExtensionInstalled(ctx, "0.3.0", installTimeout)
		pod := expectManagerRunning(ctx, ownNamespace, managerImage("0.3.0"))
		Expect(pod.Annotations).To(HaveKeyWithValue("olm.targetNamespaces", ownNamespace))
		expectLeasesConfined(ctx, ownNamespace)

		By("creating a Foo in its namespace and one in another: only the first is reconciled")
		for _, namespace := range []string{ownNamespace, storyNamespace} {
			Expect(k8sClient.Create(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "foo-01"},
				Spec: tutorialv1.FooSpec{Name: "jack"}})).To(Succeed())
		}
		expectHappy(ctx, ownNamespace, ownNamespace, "foo-01", false)
		Consistently(func(g Gomega) {
			foo := &tutorialv1.Foo{}
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: storyNamespace, Name: "foo-01"}, foo)).To(Succeed())
			g.Expect(foo.Status.Conditions).To(BeEmpty(), "a Foo outside the watched namespace")
		}).WithContext(ctx).WithTimeout(10 * time.Second).Should(Succeed())
		kubectl(ctx, "delete", "clusterextension", olmv1Extension)
		suite.ExpectGone(ctx, k8sClient, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: fooCRD}}, installTimeout)
	}, SpecTimeout(10*time.Minute))
}

// readmeOLMv1YAML writes the OLM v1 page's installation YAML (ClusterCatalog, Namespace,
// ServiceAccount, ClusterRoleBinding, ClusterExtension) into a file, with its catalog image
// replaced by image, its poll interval by the shortest catalogd allows, and its version by
// version, and returns the file's path.
func readmeOLMv1YAML(image, version string) string {
	GinkgoHelper()
	block := pageYAML(olmv1Page, "ClusterCatalog", "ClusterExtension")
	for _, replacement := range []struct{ pattern, value string }{
		{`ref: \$REGISTRY/foo-operator-catalog:\S+`, "ref: " + image},
		{`pollIntervalMinutes: \d+`, "pollIntervalMinutes: 1"},
		{`version: "[^"]*"`, fmt.Sprintf("version: %q", version)},
	} {
		pattern := regexp.MustCompile(replacement.pattern)
		Expect(pattern.MatchString(block)).To(BeTrue(), "the OLM v1 page's YAML has no %s", replacement.pattern)
		block = pattern.ReplaceAllString(block, replacement.value)
	}
	for _, document := range strings.Split(block, "\n---\n") {
		var check map[string]any
		Expect(yaml.Unmarshal([]byte(document), &check)).To(Succeed())
	}
	path := filepath.Join(workDir, "readme-olmv1.yaml")
	Expect(os.WriteFile(path, []byte(block), 0o644)).To(Succeed())
	return path
}

// expectCatalogServing waits until catalogd serves the OLM v1 page's ClusterCatalog.
func expectCatalogServing(ctx context.Context) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		catalog := &unstructured.Unstructured{}
		catalog.SetGroupVersionKind(clusterCatalogKind)
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Name: olmv1Catalog}, catalog)).To(Succeed())
		g.Expect(catalog.GetLabels()).To(HaveKeyWithValue("olm.operatorframework.io/metadata.name", olmv1Catalog),
			"catalogd's webhook labels every ClusterCatalog with its name")
		g.Expect(conditionOf(catalog, "Serving")).To(HavePrefix("True"), "ClusterCatalog %s: %s", olmv1Catalog, conditionsOf(catalog))
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
}

// expectExtensionInstalled waits until the ClusterExtension has installed version.
func expectExtensionInstalled(ctx context.Context, version string, timeout time.Duration) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		extension := &unstructured.Unstructured{}
		extension.SetGroupVersionKind(clusterExtensionKind)
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Name: olmv1Extension}, extension)).To(Succeed())
		installed, _, _ := unstructured.NestedString(extension.Object, "status", "install", "bundle", "version")
		g.Expect(installed).To(Equal(version), "the version ClusterExtension %s installed; its conditions: %s", olmv1Extension, conditionsOf(extension))
		g.Expect(conditionOf(extension, "Installed")).To(HavePrefix("True"), "ClusterExtension %s: %s", olmv1Extension, conditionsOf(extension))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// setExtensionVersion sets the version range of the ClusterExtension, as a user does.
func setExtensionVersion(ctx context.Context, version string) {
	GinkgoHelper()
	By("setting the ClusterExtension's version to " + version)
	kubectl(ctx, "patch", "clusterextension", olmv1Extension, "--type=merge",
		"-p", fmt.Sprintf(`{"spec":{"source":{"catalog":{"version":%q}}}}`, version))
}

// deployedRevision returns the revision of the deployed Helm release operator-controller
// keeps for the ClusterExtension: 1 for the install, one more for each upgrade. It keeps
// them in its namespace as Secrets, indexed by labels, in chunks.
func deployedRevision(ctx context.Context) string {
	GinkgoHelper()
	var secrets corev1.SecretList
	Expect(k8sClient.List(ctx, &secrets, client.InNamespace(olmv1Namespace), client.MatchingLabels{
		"owner": "operator-controller", "type": "index", "name": olmv1Extension, "status": "deployed"})).To(Succeed())
	Expect(secrets.Items).To(HaveLen(1), "the deployed Helm release of %s", olmv1Extension)
	return secrets.Items[0].Labels["version"]
}

// conditionOf returns "Status: Reason: Message" of the condition of type kind in obj's status.
func conditionOf(obj *unstructured.Unstructured, kind string) string {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, item := range conditions {
		condition, _ := item.(map[string]any)
		if condition["type"] == kind {
			return fmt.Sprintf("%v: %v: %v", condition["status"], condition["reason"], condition["message"])
		}
	}
	return "absent"
}

// conditionsOf lists the conditions of obj's status, for messages.
func conditionsOf(obj *unstructured.Unstructured) string {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	lines := make([]string, 0, len(conditions))
	for _, item := range conditions {
		condition, _ := item.(map[string]any)
		lines = append(lines, fmt.Sprintf("%v=%v (%v): %v", condition["type"], condition["status"], condition["reason"], condition["message"]))
	}
	return strings.Join(lines, "; ")
}

// expectEachInstallerRuleNeeded applies the OLM v1 page's YAML (the file at manifest) but its
// ClusterExtension, then, for each rule of the installer's ClusterRole and Role in turn, takes
// the rule away, creates the ClusterExtension and waits until it says that it was not
// installed and names the rule's resource as missing (operator-controller's
// PreflightPermissions check, on in the local cluster), then deletes it and gives the rule back.
// So the OLM v1 page grants no rule the installation does without. Nothing is installed meanwhile.
func expectEachInstallerRuleNeeded(ctx context.Context, manifest, operatorNamespace string) {
	GinkgoHelper()
	file, err := os.Open(manifest)
	Expect(err).NotTo(HaveOccurred())
	objects, err := resources.Decode(file)
	_ = file.Close()
	Expect(err).NotTo(HaveOccurred(), "decoding %s", manifest)
	var extension *unstructured.Unstructured
	var others []byte
	for _, object := range objects {
		if object.GroupVersionKind() == clusterExtensionKind {
			extension = object
			continue
		}
		document, err := yaml.Marshal(object.Object)
		Expect(err).NotTo(HaveOccurred())
		others = append(append(others, "---\n"...), document...)
	}
	Expect(extension).NotTo(BeNil(), "the OLM v1 page's YAML has no ClusterExtension")
	withoutExtension := filepath.Join(workDir, "readme-olmv1-without-extension.yaml")
	Expect(os.WriteFile(withoutExtension, others, 0o644)).To(Succeed())
	kubectl(ctx, "apply", "-f", withoutExtension)
	expectCatalogServing(ctx)

	for _, role := range []types.NamespacedName{{Name: olmv1Installer}, {Namespace: operatorNamespace, Name: olmv1Installer}} {
		kind := "ClusterRole"
		if role.Namespace != "" {
			kind = "Role"
		}
		installer := &unstructured.Unstructured{}
		installer.SetGroupVersionKind(rbacv1.SchemeGroupVersion.WithKind(kind))
		Expect(k8sClient.Get(ctx, role, installer)).To(Succeed())
		rules, _, _ := unstructured.NestedSlice(installer.Object, "rules")
		Expect(rules).NotTo(BeEmpty(), "the rules of the OLM v1 page's %s %s", kind, olmv1Installer)
		for i, rule := range rules {
			needle := ruleSubject(rule.(map[string]any))
			By(fmt.Sprintf("taking rule %d of %s %s away (%s): the ClusterExtension says it lacks it", i+1, kind, olmv1Installer, needle))
			setRules(ctx, role, kind, append(append([]any{}, rules[:i]...), rules[i+1:]...))
			attempt := extension.DeepCopy()
			Expect(k8sClient.Create(ctx, attempt)).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(attempt), attempt)).To(Succeed())
				g.Expect(conditionOf(attempt, "Progressing")).To(And(ContainSubstring("pre-authorization failed"), ContainSubstring(needle)),
					"ClusterExtension %s without rule %d of %s %s: %s", olmv1Extension, i+1, kind, olmv1Installer, conditionsOf(attempt))
			}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
			Expect(conditionOf(attempt, "Installed")).NotTo(HavePrefix("True"), "ClusterExtension %s: %s", olmv1Extension, conditionsOf(attempt))
			Expect(k8sClient.Delete(ctx, attempt)).To(Succeed())
			suite.ExpectGone(ctx, k8sClient, attempt, installTimeout)
			setRules(ctx, role, kind, rules)
		}
	}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: operatorNamespace, Name: operatorDeployment}, &appsv1.Deployment{})).
		To(WithTransform(apierrors.IsNotFound, BeTrue()), "the operator's Deployment, while the installer lacked a rule")
}

// ruleSubject is what a rule is about, as operator-controller names a missing one: its first
// resource, or its first non-resource URL.
func ruleSubject(rule map[string]any) string {
	for _, field := range []string{"resources", "nonResourceURLs"} {
		if values, _ := rule[field].([]any); len(values) > 0 {
			return values[0].(string)
		}
	}
	return fmt.Sprint(rule)
}

// setRules replaces the rules of the role (a ClusterRole when role has no namespace).
func setRules(ctx context.Context, role types.NamespacedName, kind string, rules []any) {
	GinkgoHelper()
	installer := &unstructured.Unstructured{}
	installer.SetGroupVersionKind(rbacv1.SchemeGroupVersion.WithKind(kind))
	Expect(k8sClient.Get(ctx, role, installer)).To(Succeed())
	Expect(unstructured.SetNestedSlice(installer.Object, rules, "rules")).To(Succeed())
	Expect(k8sClient.Update(ctx, installer)).To(Succeed())
}

// preflightPermissionsOn tells whether operator-controller runs with its PreflightPermissions
// feature gate on, as its Deployment in the cluster says.
func preflightPermissionsOn(ctx context.Context) bool {
	GinkgoHelper()
	var deployments appsv1.DeploymentList
	Expect(k8sClient.List(ctx, &deployments, client.InNamespace(olmv1Namespace))).To(Succeed())
	for _, deployment := range deployments.Items {
		for _, container := range deployment.Spec.Template.Spec.Containers {
			for _, arg := range container.Args {
				if gates, ok := strings.CutPrefix(arg, "--feature-gates="); ok && slices.Contains(strings.Split(gates, ","), "PreflightPermissions=true") {
					return true
				}
			}
		}
	}
	return false
}

// ownNamespaceInstallerRBAC is what the OLM v1 page tells an OwnNamespace installation's installer
// (%[1]s, in namespace %[2]s) needs beyond its YAML: the operator's Roles, which OLM v1 makes in
// that namespace, list and watch cluster-wide and the rest there.
const ownNamespaceInstallerRBAC = `---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: %[1]s-roles
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [roles, rolebindings]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: %[1]s-roles
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: %[1]s-roles}
subjects: [{kind: ServiceAccount, name: %[1]s, namespace: %[2]s}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: %[1]s-roles
  namespace: %[2]s
rules:
- apiGroups: [rbac.authorization.k8s.io]
  resources: [roles, rolebindings]
  verbs: [create, get, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: %[1]s-roles
  namespace: %[2]s
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %[1]s-roles}
subjects: [{kind: ServiceAccount, name: %[1]s, namespace: %[2]s}]
`
