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
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/test/harness/suite"
	"github.com/example/foo-operator/test/localcluster"
)

func catalogJourney() {
	const (
		// The names of the README's installation YAML.
		operatorNamespace = packageName
		catalogSource     = "foo-operator-catalog"
		storyNamespace    = "catalog-story"
	)
	var (
		published *testCatalog
		// catalogImage is the tag the CatalogSource polls; each release is published there.
		catalogImage string
		// The story's Foos, as they are before every upgrade.
		stories map[string]*tutorialv1.Foo
		// world is the Foos and friend pods the upgrade to 0.3.0 churns, which the node's
		// faults then break things under.
		world *suite.FriendWorld
	)

	BeforeAll(func(ctx context.Context) {
		catalogImage = imageTagBase + "-catalog:latest"
		var err error
		published, err = loadPublishedCatalog()
		Expect(err).NotTo(HaveOccurred())
		createNamespaces(ctx, newNamespace(storyNamespace, nil))
		// Registered here, it runs once the journey's last spec is done (the specs after the
		// install poll the same CatalogSource).
		DeferCleanup(func(ctx context.Context) {
			kubectl(ctx, "delete", "--ignore-not-found", "catalogsource/"+catalogSource, "-n", olmNamespace)
		})
	})

	It("installs 0.1.0 from the catalog image with the README's YAML, and the operator plays the story", func(ctx context.Context) {
		first, err := published.upTo("0.1.0")
		Expect(err).NotTo(HaveOccurred())
		publishCatalog(ctx, first, catalogImage)

		By("applying the README's CatalogSource, Namespace, OperatorGroup and Subscription")
		manifest := readmeInstallYAML(catalogImage)
		kubectl(ctx, "apply", "-f", manifest)
		expectInstalled(ctx, operatorNamespace, packageName, "0.1.0")
		playStory(ctx, operatorNamespace, storyNamespace)
		stories = foosIn(ctx, storyNamespace)

		By("checking that the statuses were written by the operator as the CSV's ServiceAccount")
		Expect(statusWriters(storyNamespace, "foo-01")).To(ConsistOf(
			serviceaccount.MakeUsername(operatorNamespace, operatorServiceAccount)))
	}, SpecTimeout(10*time.Minute))

	// upgradeByPublishing publishes the catalog up to version under the tag the CatalogSource
	// polls, and waits until OLM has replaced previous with it, as the catalog's graph says.
	upgradeByPublishing := func(ctx context.Context, previous, version string) {
		GinkgoHelper()
		next, err := published.upTo(version)
		Expect(err).NotTo(HaveOccurred())
		publishCatalog(ctx, next, catalogImage)
		expectInstalled(ctx, operatorNamespace, packageName, version)
		csv := expectCSVSucceeded(ctx, operatorNamespace, csvName(version))
		Expect(csv.Spec.Replaces).To(Equal(csvName(previous)), "the catalog's graph: %s replaces %s", version, previous)
		expectGone(ctx, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{
			Namespace: operatorNamespace, Name: csvName(previous)}}, installTimeout)
	}

	// expectRunsOnItsOwnRBAC deletes the manager's pod once the RBAC OLM made for previous is
	// gone, and checks that its replacement runs and follows the story on version's alone.
	expectRunsOnItsOwnRBAC := func(ctx context.Context, previous, version string) {
		GinkgoHelper()
		By("deleting the manager's pod once the RBAC of " + previous + " is gone: the new pod runs on " + version + "'s alone")
		expectNoRBACOf(ctx, operatorNamespace, csvName(previous))
		pod, err := installedOperator(operatorNamespace).Pod(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(k8sClient.Delete(ctx, pod)).To(Succeed())
		Eventually(func(g Gomega) {
			replacement, err := installedOperator(operatorNamespace).Pod(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(replacement.UID).NotTo(Equal(pod.UID))
			g.Expect(replacement.Status.ContainerStatuses).To(ConsistOf(HaveField("Ready", BeTrue())),
				"the new pod: %s", localcluster.DescribePod(replacement))
		}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
		expectStillFollows(ctx, operatorNamespace, storyNamespace)
	}

	It("upgrades to 0.2.0 as it is published under the same tag, through the catalog's graph, keeping the Foos", func(ctx context.Context) {
		upgradeByPublishing(ctx, "0.1.0", "0.2.0")
		expectSameFoos(ctx, storyNamespace, stories)
		expectRunsOnItsOwnRBAC(ctx, "0.1.0", "0.2.0")
		expectNoForbidden(ctx, operatorNamespace)
	}, SpecTimeout(10*time.Minute))

	// The upgrade to 0.3.0 and the node's faults after it meet the operator at work: in a
	// world of Foos whose friend pods churn, which lives until both are done.
	Describe("in a world of Foos whose friends churn", Ordered, func() {
		BeforeAll(func(ctx context.Context) {
			createNamespaces(ctx, newNamespace(upgradeChurnNamespace, nil))
			foos, friends := suite.WorldSizes("E2E_CHURN_FOOS", "E2E_CHURN_FRIENDS")
			By(fmt.Sprintf("creating %d Foos looking for %d friend pods, half of them running", foos, friends))
			world = suite.NewFriendWorld(ctx, suite.FriendWorldOptions{
				Client: k8sClient, Namespace: upgradeChurnNamespace, Foos: foos, Friends: friends,
				PauseImage: cluster.Image("pause"), BusyboxImage: cluster.Image("busybox"),
				OperatorRestarts: func(ctx context.Context) int32 { return installedOperator(operatorNamespace).Restarts(ctx) },
				ChurnInterval:    upgradeChurnInterval,
			})
		})

		It("upgrades to 0.3.0 while the friends of its Foos churn: the two releases' managers overlap, "+
			"neither is denied a request once OLM's bindings for 0.3.0 exist, and every Foo is right within 90s", func(ctx context.Context) {
			const previous, version = "0.2.0", "0.3.0"
			recorded := recordHandover(ctx, operatorNamespace, csvName(version), upgradeChurnNamespace)
			injected := fmt.Sprintf("%s published in the catalog image the CatalogSource polls, replacing %s", version, previous)
			figures := world.UnderChurn(ctx, "OLM upgrade", injected,
				func(ctx context.Context, _ *suite.FaultFigures) {
					upgradeByPublishing(ctx, previous, version)
					expectManagerRunning(ctx, operatorNamespace, managerImage(version))
				})
			measuredFaults = append(measuredFaults, figures)
			recorded.stop()

			Expect(recorded.overlapped(managerImage(previous), managerImage(version))).To(BeTrue(),
				"a manager of %s and one of %s running at once, as the Deployment's rolling update makes them; the manager pods seen: %s",
				previous, version, recorded.podsSeen())
			complete, bindings := recorded.bindingsComplete()
			Expect(bindings).NotTo(BeEmpty(), "the bindings OLM made for %s", csvName(version))
			// The bindings take effect when the apiserver's authorizer has them in its cache, a
			// moment after they exist: denials are judged from then, which the apiserver itself
			// tells (SubjectAccessReviews every 250ms), not from a grace window.
			authorized, ok := recorded.authorizedFrom(complete)
			Expect(ok).To(BeTrue(), "the apiserver allowing the operator's ServiceAccount every request the manager makes, "+
				"once OLM's bindings for %s all existed (%s)", version, complete.Format(time.StampMilli))
			// A denial is stamped when the node read the manager's log line: after the apiserver
			// decided, the manager got the answer and logged it, which took up to 91 ms at the
			// full size (500 Foos). One stamped within a look (250 ms) of the first allowed look
			// cannot be told from one decided just before it, and counts with OLM's lag.
			decidedBy := authorized.Add(handoverPollInterval)
			var lag, late []string
			atTheEdge := 0
			for _, d := range recorded.denials() {
				if d.at.After(decidedBy) {
					late = append(late, d.at.Format(time.StampMilli)+" "+d.pod+": "+d.line)
					continue
				}
				if d.at.After(authorized) {
					atTheEdge++
				}
				lag = append(lag, fmt.Sprintf("%s %s: %s %s/%s in %q", d.at.Format(time.StampMilli), d.pod, d.verb, d.group, d.resource, d.namespace))
			}
			AddReportEntry("OLM's RBAC handover from "+previous+" to "+version, fmt.Sprintf(
				"the bindings for %s complete at %s: %s\nthe apiserver authorized the manager's requests from %s (%s after)\n"+
					"the manager pods: %s\n%d denials before it, or stamped less than %s after it (%d of them): %v",
				version, complete.Format(time.StampMilli), strings.Join(bindings, ", "), authorized.Format(time.StampMilli),
				authorized.Sub(complete).Round(time.Millisecond), recorded.podsSeen(), len(lag), handoverPollInterval, atTheEdge, lag),
				ReportEntryVisibilityAlways)
			Expect(late).To(BeEmpty(), "requests denied to the managers after the apiserver authorized them, "+
				"once OLM's bindings for %s all existed (%s, and a look later)", version, authorized.Format(time.StampMilli))
			expectSameFoos(ctx, storyNamespace, stories)
			expectRunsOnItsOwnRBAC(ctx, previous, version)
			expectLeasesConfined(ctx, operatorNamespace)
		}, SpecTimeout(15*time.Minute))

		// Users run the operator as OLM installed it, on nodes that fail under it: the node
		// suite's faults, on 0.3.0 from the catalog, in the world the upgrade churned. Under OLM
		// v0 the Deployment is the CSV's (OLM writes the CSV's spec over it whenever it applies
		// the CSV again), so a user scales it in the CSV; and OLM watches it through every fault.
		Describe("then, with two replicas, keeps its Foos right while its node is broken under it and the friends churn",
			Label("faults"), Ordered, func() {
				const version = "0.3.0"
				faults := &suite.NodeFaults{Replicas: 2, Measured: &measuredFaults}
				operator := &suite.InstalledOperator{Namespace: operatorNamespace}

				BeforeAll(func(ctx context.Context) {
					operator.Cluster, operator.Client = cluster, k8sClient
					faults.Operator, faults.World = operator, world
					// OLM may mark the CSV Failed while a fault leaves its Deployment short of
					// replicas; it must come back to Succeeded, with nothing reinstalled by hand.
					faults.Healthy = func(ctx context.Context) {
						csv := expectCSVSucceeded(ctx, operatorNamespace, csvName(version))
						AddReportEntry("What OLM made of the fault: the phases of the CSV since the spec began",
							csvPhasesSince(csv, CurrentSpecReport().StartTime), ReportEntryVisibilityAlways)
					}
					By(fmt.Sprintf("setting %d replicas in the CSV of %s", faults.Replicas, version))
					setCSVReplicas(ctx, operatorNamespace, csvName(version), faults.Replicas)
					operator.ExpectRolledOut(ctx, faults.Replicas, "with the replicas of its CSV")
					DeferCleanup(func(ctx context.Context) {
						setCSVReplicas(ctx, operatorNamespace, csvName(version), 1)
						operator.ExpectRolledOut(ctx, 1, "with the one replica of its CSV again")
						expectCSVSucceeded(ctx, operatorNamespace, csvName(version))
					})
				})
				AfterEach(operator.LogsOnFailure)
				AfterAll(operator.SaveLogs)

				suite.NodeFaultSpecs(faults)
			})
	})

	It("is sized through the Subscription: the manager's pod gets the new limits, and the Go runtime's memory limit follows", func(ctx context.Context) {
		expectSizedBySubscription(ctx, operatorNamespace, packageName, "384Mi")
		expectStillFollows(ctx, operatorNamespace, storyNamespace)
	}, SpecTimeout(10*time.Minute))

	It("holds a published upgrade while a Foo asks it to, and completes it once the hold is removed", func(ctx context.Context) {
		const head, next = "0.3.0", "0.4.0"
		By("holding upgrades on foo-02")
		patchHold(ctx, storyNamespace, "e2e: keep the current release")
		Eventually(func(g Gomega) {
			condition := &operatorsv2.OperatorCondition{}
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: operatorNamespace, Name: csvName(head)}, condition)).To(Succeed())
			upgradeable := meta.FindStatusCondition(condition.Status.Conditions, operatorsv2.Upgradeable)
			g.Expect(upgradeable).NotTo(BeNil(), "OLM shows no Upgradeable condition in OperatorCondition %s", condition.Name)
			g.Expect(upgradeable.Status).To(Equal(metav1.ConditionFalse), "Upgradeable: %s", upgradeable.Message)
		}).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(Succeed())

		By("publishing release " + next + " (the bundle of " + head + " renamed) under the same tag")
		publishBundleCopy(ctx, head, next)
		withNext, err := published.withRelease(next)
		Expect(err).NotTo(HaveOccurred())
		publishCatalog(ctx, withNext, catalogImage)
		nextCSV := &operatorsv1alpha1.ClusterServiceVersion{}
		heldPending := func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: operatorNamespace, Name: csvName(next)}, nextCSV)).To(Succeed())
			g.Expect(nextCSV.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhasePending))
			g.Expect(nextCSV.Status.Reason).To(Equal(operatorsv1alpha1.CSVReasonOperatorConditionNotUpgradeable),
				"CSV %s: %s", nextCSV.Name, nextCSV.Status.Message)
		}
		Eventually(heldPending).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
		// OLM re-checks a pending CSV on every resync; it must stay held, with the release in
		// place still deployed and running.
		Consistently(heldPending).WithContext(ctx).WithTimeout(5 * time.Second).Should(Succeed())
		deployment := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: operatorNamespace, Name: operatorDeployment}, deployment)).To(Succeed())
		Expect(deployment.Spec.Template.Spec.Containers[0].Env).To(ContainElement(
			corev1.EnvVar{Name: "OPERATOR_CONDITION_NAME", Value: csvName(head)}), "the Deployment is no longer that of %s", head)
		expectManagerRunning(ctx, operatorNamespace, managerImage(head))

		By("removing the hold")
		patchHold(ctx, storyNamespace, "")
		expectInstalledRunning(ctx, operatorNamespace, packageName, next, managerImage(head))
		expectGone(ctx, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{
			Namespace: operatorNamespace, Name: csvName(head)}}, installTimeout)
		expectStillFollows(ctx, operatorNamespace, storyNamespace)
		// Checked before the uninstall: then the garbage collector may delete the RoleBinding
		// before the manager stops, and its last request, releasing the leader lease, is denied.
		expectNoForbidden(ctx, operatorNamespace)
	}, SpecTimeout(10*time.Minute))

	It("tells, in the Subscription, that a published release's bundle image is missing, naming it", func(ctx context.Context) {
		const head, missing = "0.4.0", "0.5.0"
		withHead, err := published.withRelease(head)
		Expect(err).NotTo(HaveOccurred())
		broken, err := withHead.withRelease(missing)
		Expect(err).NotTo(HaveOccurred())
		publishCatalog(ctx, broken, catalogImage)

		// OLM v0.46.0's Subscription says that the bundle image could not be pulled, not
		// which one: the unpack Job's pod, in the catalog's namespace, names it.
		subscription := &operatorsv1alpha1.Subscription{}
		var pullFailure string
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: operatorNamespace, Name: packageName}, subscription)).To(Succeed())
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
		expectManagerRunning(ctx, operatorNamespace, managerImage("0.3.0"))

		By("publishing the catalog without the broken release again")
		publishCatalog(ctx, withHead, catalogImage)
	}, SpecTimeout(10*time.Minute))

	It("uninstalls: the operator and what OLM made for it go, the CRD and the Foos stay", func(ctx context.Context) {
		uninstall(ctx, operatorNamespace, csvName("0.4.0"))
		Expect(k8sClient.Get(ctx, types.NamespacedName{Name: fooCRD}, &apiextensionsv1.CustomResourceDefinition{})).To(Succeed())
		expectSameFoos(ctx, storyNamespace, stories)
		deleteCRD(ctx)
	}, SpecTimeout(10*time.Minute))
}

// The upgrade under churn's world: as many Foos and friends as the node's fault suite has
// (E2E_CHURN_FOOS and E2E_CHURN_FRIENDS, the full world's unless set), churned at a pace the
// node keeps up with while it also starts OLM's pods (the catalog's at each poll, the
// bundle's unpack Job, the new manager): at the node suite's 4 to 6 changes a second, the
// kubelet fell minutes behind, and the upgrade with it.
const (
	upgradeChurnNamespace = "upgrade-churn"
	upgradeChurnInterval  = time.Second
)

// readmeInstallYAML writes the README's installation YAML (CatalogSource, Namespace,
// OperatorGroup, Subscription) into a file, with its catalog image replaced by image, and
// returns the file's path: the suite installs the way the README tells users to, polling the
// catalog as often as the README's CatalogSource does.
func readmeInstallYAML(image string) string {
	GinkgoHelper()
	block := readmeYAML("CatalogSource", "Subscription")
	placeholder := regexp.MustCompile(`image: \$REGISTRY/foo-operator-catalog:\S+`)
	Expect(placeholder.MatchString(block)).To(BeTrue(), "the README's CatalogSource names no $REGISTRY/foo-operator-catalog image")
	block = placeholder.ReplaceAllString(block, "image: "+image)
	var check map[string]any
	Expect(yaml.Unmarshal([]byte(strings.Split(block, "\n---\n")[0]), &check)).To(Succeed())
	file := filepath.Join(workDir, "readme-install.yaml")
	Expect(os.WriteFile(file, []byte(block), 0o644)).To(Succeed())
	return file
}

// readmeYAML returns the README's YAML that shows objects of both kinds: a document the
// README applies with `kubectl apply -f - <<EOF`.
func readmeYAML(kind, otherKind string) string {
	GinkgoHelper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	Expect(err).NotTo(HaveOccurred())
	var block string
	for _, match := range regexp.MustCompile("(?s)kubectl apply -f - <<EOF\n(.*?\n)EOF\n").FindAllStringSubmatch(string(readme), -1) {
		if strings.Contains(match[1], "kind: "+kind+"\n") && strings.Contains(match[1], "kind: "+otherKind+"\n") {
			block = match[1]
		}
	}
	Expect(block).NotTo(BeEmpty(), "the README shows no %s and %s", kind, otherKind)
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
	_, err = cluster.Registry.PushLayout(ctx, tools.imageStore, image)
	Expect(err).NotTo(HaveOccurred())
}
