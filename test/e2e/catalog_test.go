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
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

// catalogJourney installs from a catalog image with the catalog page's YAML, and upgrades by
// publishing each release under the tag the CatalogSource polls; on any cluster with OLM v0.
func catalogJourney() {
	var catalog *catalogInstall

	BeforeAll(func(ctx context.Context) {
		catalog = newCatalogInstall(ctx, "catalog-story", "catalog:latest", readmeCatalogSource)
	})

	It("installs 0.1.0 from the catalog image with the catalog page's YAML, and the operator plays the story", func(ctx context.Context) {
		catalog.install(ctx, "0.1.0")
	}, SpecTimeout(10*time.Minute))

	It("upgrades to 0.2.0 as it is published under the same tag, through the catalog's graph, keeping the Foos", func(ctx context.Context) {
		catalog.upgradeByPublishing(ctx, "0.1.0", "0.2.0")
		catalog.restartOnItsOwnRBAC(ctx, "0.1.0", "0.2.0")
		expectKeptAcrossUpgrade(ctx, catalog.upgradedTo("0.2.0"))
	}, SpecTimeout(10*time.Minute))

	It("upgrades to 0.3.0 as it is published, keeping the Foos, on 0.3.0's RBAC alone, its Lease rights confined", func(ctx context.Context) {
		catalog.upgradeByPublishing(ctx, "0.2.0", "0.3.0")
		catalog.restartOnItsOwnRBAC(ctx, "0.2.0", "0.3.0")
		expectKeptAcrossUpgrade(ctx, catalog.upgradedTo("0.3.0"))
	}, SpecTimeout(10*time.Minute))

	It("holds a published upgrade while a Foo asks it to, and completes it once the hold is removed", func(ctx context.Context) {
		const head, next = "0.3.0", "0.4.0"
		By("holding upgrades on foo-02")
		patchHold(ctx, catalog.storyNamespace, "e2e: keep the current release")
		Eventually(func(g Gomega) {
			condition := &operatorsv2.OperatorCondition{}
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: catalog.operatorNamespace, Name: csvName(head)}, condition)).To(Succeed())
			upgradeable := meta.FindStatusCondition(condition.Status.Conditions, operatorsv2.Upgradeable)
			g.Expect(upgradeable).NotTo(BeNil(), "OLM shows no Upgradeable condition in OperatorCondition %s", condition.Name)
			g.Expect(upgradeable.Status).To(Equal(metav1.ConditionFalse), "Upgradeable: %s", upgradeable.Message)
		}).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(Succeed())

		By("publishing release " + next + " (the bundle of " + head + " renamed) under the same tag")
		publishBundleCopy(ctx, head, next)
		withNext, err := catalog.published.withRelease(next)
		Expect(err).NotTo(HaveOccurred())
		publishCatalog(ctx, withNext, catalog.catalogImage)
		nextCSV := &operatorsv1alpha1.ClusterServiceVersion{}
		heldPending := func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: catalog.operatorNamespace, Name: csvName(next)}, nextCSV)).To(Succeed())
			g.Expect(nextCSV.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhasePending))
			g.Expect(nextCSV.Status.Reason).To(Equal(operatorsv1alpha1.CSVReasonOperatorConditionNotUpgradeable),
				"CSV %s: %s", nextCSV.Name, nextCSV.Status.Message)
		}
		Eventually(heldPending).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
		// OLM re-checks a pending CSV on every resync; it must stay held, with the release in
		// place still deployed and running.
		Consistently(heldPending).WithContext(ctx).WithTimeout(5 * time.Second).Should(Succeed())
		deployment := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: catalog.operatorNamespace, Name: operatorDeployment}, deployment)).To(Succeed())
		Expect(deployment.Spec.Template.Spec.Containers[0].Env).To(ContainElement(
			corev1.EnvVar{Name: "OPERATOR_CONDITION_NAME", Value: csvName(head)}), "the Deployment is no longer that of %s", head)
		expectManagerRunning(ctx, catalog.operatorNamespace, managerImage(head))

		By("removing the hold")
		patchHold(ctx, catalog.storyNamespace, "")
		expectInstalledRunning(ctx, catalog.operatorNamespace, packageName, next, managerImage(head))
		suite.ExpectGone(ctx, k8sClient, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{
			Namespace: catalog.operatorNamespace, Name: csvName(head)}}, installTimeout)
		expectStillFollows(ctx, catalog.operatorNamespace, catalog.storyNamespace)
		// Checked before the uninstall: then the garbage collector may delete the RoleBinding
		// before the manager stops, and its last request, releasing the leader lease, is denied.
		expectNoForbidden(ctx, catalog.operatorNamespace)
	}, SpecTimeout(10*time.Minute))

	It("tells, in the Subscription, that a published release's bundle image is missing, naming it", func(ctx context.Context) {
		const head, missing = "0.4.0", "0.5.0"
		withHead, err := catalog.published.withRelease(head)
		Expect(err).NotTo(HaveOccurred())
		broken, err := withHead.withRelease(missing)
		Expect(err).NotTo(HaveOccurred())
		publishCatalog(ctx, broken, catalog.catalogImage)

		// OLM v0.46.0's Subscription says that the bundle image could not be pulled, not
		// which one: the unpack Job's pod, in the catalog's namespace, names it.
		subscription := &operatorsv1alpha1.Subscription{}
		var pullFailure string
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: catalog.operatorNamespace, Name: packageName}, subscription)).To(Succeed())
			pullFailure = ""
			var messages []string
			for _, condition := range subscription.Status.Conditions {
				if condition.Status == corev1.ConditionTrue {
					message := string(condition.Type) + " (" + condition.Reason + "): " + condition.Message
					messages = append(messages, message)
					if strings.Contains(condition.Message, "image pull failed") {
						pullFailure = message
					}
				}
			}
			g.Expect(pullFailure).NotTo(BeEmpty(), "a condition of the Subscription telling of a failed bundle image pull; its conditions: %v", messages)
		}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
		AddReportEntry("What the Subscription says of a missing bundle image", pullFailure)

		var podMessage string
		Eventually(func(g Gomega) {
			var pods corev1.PodList
			g.Expect(k8sClient.List(ctx, &pods, client.InNamespace(olmNamespace))).To(Succeed())
			var seen []string
			podMessage = ""
			for _, pod := range pods.Items {
				for _, status := range pod.Status.InitContainerStatuses {
					if status.State.Waiting == nil {
						continue
					}
					message := pod.Name + ": " + status.State.Waiting.Reason + ": " + status.State.Waiting.Message
					seen = append(seen, message)
					if strings.Contains(status.State.Waiting.Message, bundleImage(missing)) &&
						(status.State.Waiting.Reason == "ErrImagePull" || status.State.Waiting.Reason == "ImagePullBackOff") {
						podMessage = message
					}
				}
			}
			g.Expect(podMessage).NotTo(BeEmpty(), "an unpack pod in %s whose image pull of %s failed; waiting init containers: %v",
				olmNamespace, bundleImage(missing), seen)
		}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
		AddReportEntry("What the unpack pod says of a missing bundle image", podMessage)
		expectManagerRunning(ctx, catalog.operatorNamespace, managerImage("0.3.0"))

		By("publishing the catalog without the broken release again")
		publishCatalog(ctx, withHead, catalog.catalogImage)
	}, SpecTimeout(10*time.Minute))

	It("uninstalls: the operator and what OLM made for it go, the CRD and the Foos stay", func(ctx context.Context) {
		uninstall(ctx, catalog.operatorNamespace, csvName("0.4.0"))
		expectUninstalledAsDocumented(ctx, harness.WayOLMCatalog, catalog.storyNamespace, catalog.stories)
		deleteCRD(ctx)
	}, SpecTimeout(10*time.Minute))
}

// catalogInstall is the operator installed from a catalog image with the catalog page's YAML
// (CatalogSource, Namespace, OperatorGroup, Subscription), and the story played on it: the
// steps the journeys that install from a catalog share.
type catalogInstall struct {
	// operatorNamespace is the catalog page's namespace of the operator.
	operatorNamespace, storyNamespace string
	// catalogImage is the tag the CatalogSource polls; each release is published there.
	catalogImage string
	// catalogSource names the CatalogSource.
	catalogSource string
	published     *testCatalog
	// stories are the story's Foos, as they are before every upgrade.
	stories map[string]*tutorialv1.Foo
}

// catalogPage is the page that tells users how to install from a catalog with OLM v0 (the
// catalog page): the suite applies its YAML.
const catalogPage = "docs/install-olm-catalog.md"

// readmeCatalogSource is the name of the catalog page's CatalogSource, in OLM's global catalog
// namespace.
const readmeCatalogSource = "foo-operator-catalog"

// newCatalogInstall is a catalogInstall, for a journey's BeforeAll: OLM v0 on the cluster,
// the published catalog read, the story's namespace made, and the CatalogSource deleted once
// the journey's last spec is done (the specs after the install poll it).
func newCatalogInstall(ctx context.Context, storyNamespace, catalogTag, catalogSource string) *catalogInstall {
	GinkgoHelper()
	ensureOLMv0(ctx)
	published, err := loadPublishedCatalog()
	Expect(err).NotTo(HaveOccurred())
	createNamespaces(ctx, newNamespace(storyNamespace, nil))
	DeferCleanup(func(ctx context.Context) {
		kubectl(ctx, "delete", "--ignore-not-found", "catalogsource/"+catalogSource, "-n", olmNamespace)
	})
	// The catalog page's YAML makes the operator's namespace and its OperatorGroup, which the
	// catalog page's uninstall removes last; so does the journey, once OLM's objects are gone.
	DeferCleanup(func(ctx context.Context) {
		kubectl(ctx, "delete", "--ignore-not-found", "--wait", "namespace/"+packageName)
	})
	DeferCleanup(removeLeftInstall, packageName)
	return &catalogInstall{
		operatorNamespace: packageName, storyNamespace: storyNamespace,
		catalogImage: imageTagBase + "-" + catalogTag, catalogSource: catalogSource, published: published,
	}
}

// removeLeftInstall removes what a journey that ended before its uninstall (a spec failed)
// left installed from the catalog in namespace: the Subscription, the CSVs and what OLM made
// for them, the bundle's ClusterRoles and the CRD, so that the next journey finds the
// cluster as this one found it. A journey that uninstalled leaves nothing for it to do.
func removeLeftInstall(ctx context.Context, namespace string) {
	GinkgoHelper()
	subscription := &operatorsv1alpha1.Subscription{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: packageName}}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(subscription), subscription); apierrors.IsNotFound(err) {
		return
	}
	AddReportEntry("The journey ended with the operator installed in "+namespace+": removing it", ReportEntryVisibilityAlways)
	kubectl(ctx, "delete", "--ignore-not-found", "subscription/"+packageName, "-n", namespace)
	kubectl(ctx, "delete", "csv", "--all", "-n", namespace)
	suite.ExpectGone(ctx, k8sClient, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: operatorDeployment}},
		installTimeout)
	deleteBundleClusterRoles(ctx)
	deleteCRD(ctx)
}

// install publishes the catalog up to version, applies the catalog page's YAML, waits until OLM
// installed version, and plays the story.
func (c *catalogInstall) install(ctx context.Context, version string) {
	GinkgoHelper()
	upTo, err := c.published.upTo(version)
	Expect(err).NotTo(HaveOccurred())
	publishCatalog(ctx, upTo, c.catalogImage)

	By("applying the catalog page's CatalogSource, Namespace, OperatorGroup and Subscription")
	kubectl(ctx, "apply", "-f", readmeInstallYAML(c.catalogImage, c.catalogSource))
	expectInstalled(ctx, c.operatorNamespace, packageName, version)
	playStory(ctx, c.operatorNamespace, c.storyNamespace)
	c.stories = foosIn(ctx, c.storyNamespace)
}

// upgradeByPublishing publishes the catalog up to version under the tag the CatalogSource
// polls, and waits until OLM has replaced previous with it, as the catalog's graph says.
func (c *catalogInstall) upgradeByPublishing(ctx context.Context, previous, version string) {
	GinkgoHelper()
	next, err := c.published.upTo(version)
	Expect(err).NotTo(HaveOccurred())
	publishCatalog(ctx, next, c.catalogImage)
	expectInstalled(ctx, c.operatorNamespace, packageName, version)
	csv := expectCSVSucceeded(ctx, c.operatorNamespace, csvName(version))
	Expect(csv.Spec.Replaces).To(Equal(csvName(previous)), "the catalog's graph: %s replaces %s", version, previous)
	suite.ExpectGone(ctx, k8sClient, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{
		Namespace: c.operatorNamespace, Name: csvName(previous)}}, installTimeout)
}

// restartOnItsOwnRBAC deletes the manager's pod once the RBAC OLM made for previous is gone,
// and waits until its replacement is ready: what the journey checks after it
// (expectKeptAcrossUpgrade) then holds on version's RBAC alone, not on what a pod started
// during OLM's handover may still have been granted.
func (c *catalogInstall) restartOnItsOwnRBAC(ctx context.Context, previous, version string) {
	GinkgoHelper()
	By("deleting the manager's pod once the RBAC of " + previous + " is gone: the new pod runs on " + version + "'s alone")
	expectNoRBACOf(ctx, c.operatorNamespace, csvName(previous))
	pod, err := installedOperator(c.operatorNamespace).Pod(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(k8sClient.Delete(ctx, pod)).To(Succeed())
	Eventually(func(g Gomega) {
		replacement, err := installedOperator(c.operatorNamespace).Pod(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(replacement.UID).NotTo(Equal(pod.UID), "the manager's pod, replacing %s", pod.Name)
		g.Expect(replacement.Status.ContainerStatuses).To(ConsistOf(HaveField("Ready", BeTrue())),
			"the new pod: %s", resources.DescribePod(replacement))
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
}

// upgradedTo is the upgrade to version that publishing made, for expectKeptAcrossUpgrade.
func (c *catalogInstall) upgradedTo(version string) upgrade {
	return upgrade{operatorNamespace: c.operatorNamespace, storyNamespace: c.storyNamespace,
		version: version, image: managerImage(version), stories: c.stories}
}

// readmeInstallYAML writes the catalog page's installation YAML (CatalogSource, Namespace,
// OperatorGroup, Subscription) into a file, with its catalog image replaced by image and its
// CatalogSource named source, and returns the file's path: the suite installs the way the
// catalog page tells users to, polling the catalog as often as the catalog page's CatalogSource does.
// Each journey names its CatalogSource its own way: OLM v0's resolver keeps what it read from
// a CatalogSource for a while after it is deleted, and served a journey that recreated one
// under the same name the previous journey's catalog (0.3.0 installed where the new catalog
// held 0.2.0).
func readmeInstallYAML(image, source string) string {
	GinkgoHelper()
	block := pageYAML(catalogPage, "CatalogSource", "Subscription")
	placeholder := regexp.MustCompile(`image: \$REGISTRY/foo-operator-catalog:\S+`)
	Expect(placeholder.MatchString(block)).To(BeTrue(), "the catalog page's CatalogSource names no $REGISTRY/foo-operator-catalog image")
	block = placeholder.ReplaceAllString(block, "image: "+image)
	// The catalog page's CatalogSource is in OLM's global catalog namespace, "olm" as OLM's release
	// installs it: on a cluster whose OLM runs elsewhere, where it runs.
	olmNamespaceOf := regexp.MustCompile(`(?m)^(\s+(?:namespace|sourceNamespace): )olm\b`)
	Expect(olmNamespaceOf.FindAllString(block, -1)).To(HaveLen(2), "the catalog page's CatalogSource namespace and Subscription sourceNamespace")
	block = olmNamespaceOf.ReplaceAllString(block, "${1}"+olmNamespace)
	sourceName := regexp.MustCompile(`(?m)^(\s+(?:name|source): )` + readmeCatalogSource + `$`)
	Expect(sourceName.FindAllString(block, -1)).To(HaveLen(2), "the catalog page's CatalogSource name and Subscription source")
	block = sourceName.ReplaceAllString(block, "${1}"+source)
	var check map[string]any
	Expect(yaml.Unmarshal([]byte(strings.Split(block, "\n---\n")[0]), &check)).To(Succeed())
	file := filepath.Join(workDir, "readme-install.yaml")
	Expect(os.WriteFile(file, []byte(block), 0o644)).To(Succeed())
	return file
}

// pageYAML returns the YAML of page (a path from the repository's root) that shows objects
// of both kinds: a document the page applies with `kubectl apply -f - <<EOF`.
func pageYAML(page, kind, otherKind string) string {
	GinkgoHelper()
	text, err := os.ReadFile(filepath.Join("..", "..", page))
	Expect(err).NotTo(HaveOccurred())
	var block string
	for _, match := range regexp.MustCompile("(?s)kubectl apply -f - <<EOF\n(.*?\n)EOF\n").FindAllStringSubmatch(string(text), -1) {
		if strings.Contains(match[1], "kind: "+kind+"\n") && strings.Contains(match[1], "kind: "+otherKind+"\n") {
			block = match[1]
		}
	}
	Expect(block).NotTo(BeEmpty(), "%s shows no %s and %s", page, kind, otherKind)
	return block
}

// publishBundleCopy publishes the bundle of release from renamed as release to: the next
// release as OLM sees it when nothing else changed, replacing from.
func publishBundleCopy(ctx context.Context, from, to string) {
	GinkgoHelper()
	publishEditedBundle(ctx, from, bundleImage(to), func(csv map[string]any) {
		csv["metadata"].(map[string]any)["name"] = csvName(to)
		csv["spec"].(map[string]any)["version"] = to
		csv["spec"].(map[string]any)["replaces"] = csvName(from)
	})
}

// publishEditedBundle publishes as image the bundle of release from with its CSV changed by
// edit. It is built from the bundle folder `make bundle` wrote for from, as `make
// bundle-build` builds bundles.
func publishEditedBundle(ctx context.Context, from, image string, edit func(csv map[string]any)) {
	GinkgoHelper()
	source := filepath.Join(tools.checkout, "bundle")
	dir := scratchDir("bundle-" + path.Base(image))
	run(ctx, workDir, "cp", "-r", source+"/.", dir)
	csvPath := filepath.Join(dir, "manifests", packageName+".clusterserviceversion.yaml")
	data, err := os.ReadFile(csvPath)
	Expect(err).NotTo(HaveOccurred())
	var csv map[string]any
	Expect(yaml.Unmarshal(data, &csv)).To(Succeed())
	Expect(csv["spec"].(map[string]any)["version"]).To(Equal(from), "%s is the bundle of %s", source, from)
	edit(csv)
	data, err = yaml.Marshal(csv)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(csvPath, data, 0o644)).To(Succeed())
	run(ctx, workDir, tools.imagebuilder, "bundle", "--store", tools.imageStore, "--dir", dir, "--tag", image)
	_, err = cluster.ImageRegistry().PushLayout(ctx, tools.imageStore, image)
	Expect(err).NotTo(HaveOccurred())
}
