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
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/hack/localcluster"
	"github.com/example/foo-operator/hack/localcluster/olm"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

// restrictedLabels make a namespace enforce the restricted Pod Security level, as a
// well-kept cluster's namespaces do.
var restrictedLabels = map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}

// baselineLabels make a namespace enforce the baseline level and warn of what restricted
// would refuse: what run bundle's registry pod needs (see the first spec).
var baselineLabels = map[string]string{
	"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "restricted",
}

// unwatchedQuietPeriod is how long a Foo outside the watched namespaces must stay untouched
// while the operator reconciles the watched ones.
const unwatchedQuietPeriod = 5 * time.Second

// runBundleFlags are the flags a user of a private registry passes to operator-sdk run
// bundle besides the bundle: the index image to add the bundle to (an FBC image with a
// shell, which the registry pod runs `sh -c "opm serve ..."` in), the image of the init
// container that unpacks the catalog (sh, cat, gzip), and the security context that the
// restricted Pod Security level admits. Trust in the registry comes from SSL_CERT_FILE for
// operator-sdk itself, from containerd's own configuration for the node.
func runBundleFlags(namespace, indexImage string) []string {
	return []string{
		"--namespace", namespace, "--index-image", indexImage, "--decompression-image", cluster.Image("busybox"),
		"--security-context-config", "restricted", "--timeout", "5m",
	}
}

func runBundleJourney() {
	const (
		operatorNamespace = "run-bundle"
		storyNamespace    = "run-bundle-story"
	)
	var indexImage string

	BeforeAll(func(ctx context.Context) {
		ensureOLMv0(ctx)
		// An empty file-based catalog image, which the suite publishes (as `make cluster OLM=v0`
		// does) from the images built for a cluster with OLM. run bundle
		// refuses an index that already has the bundle, and reads the image's labels even for
		// its default index, which cannot be reached here. (run bundle-upgrade, which has no
		// --decompression-image, unpacks with registry.access.redhat.com/ubi9/ubi:9.7: the
		// library publishes busybox under that name, in the mirror of that registry.)
		pushed, err := cluster.ImageRegistry().PushLayout(ctx, localcluster.AssetsFromEnv().OLMImages, olm.EmptyIndexImage)
		Expect(err).NotTo(HaveOccurred(), "publishing the empty index image (OLM_IMAGES, `make olm-images`)")
		indexImage = pushed[olm.EmptyIndexImage]
		createNamespaces(ctx, newNamespace(operatorNamespace, restrictedLabels), newNamespace(storyNamespace, nil))
	})

	It("installs 0.1.0 for all namespaces, and the operator plays the story", func(ctx context.Context) {
		install := append([]string{"run", "bundle", bundleImage("0.1.0"), "--install-mode", "AllNamespaces"},
			runBundleFlags(operatorNamespace, indexImage)...)

		By("meeting the known problem: run bundle's registry pod is refused where restricted is enforced")
		output, err := runTool(ctx, scratchDir("run-bundle"), tools.operatorSDK, install...)
		Expect(err).To(HaveOccurred(), "run bundle in a namespace enforcing restricted")
		Expect(output).To(ContainSubstring(`error creating registry pod`))
		Expect(output).To(ContainSubstring(`violates PodSecurity \"restricted:latest\"`))
		AddReportEntry("run bundle where restricted is enforced", output[strings.LastIndex(output, "level=fatal"):])
		run(ctx, scratchDir("run-bundle"), tools.operatorSDK, "cleanup", packageName, "--namespace", operatorNamespace, "--timeout", "2m")

		By("enforcing baseline in the namespace instead, as a user must, and running it again")
		kubectl(ctx, "label", "namespace", operatorNamespace, "--overwrite",
			"pod-security.kubernetes.io/enforce=baseline", "pod-security.kubernetes.io/warn=restricted")
		run(ctx, scratchDir("run-bundle"), tools.operatorSDK, install...)
		expectCSVSucceeded(ctx, operatorNamespace, csvName("0.1.0"))
		expectManagerRunning(ctx, operatorNamespace, managerImage("0.1.0"))
		playStory(ctx, operatorNamespace, storyNamespace)
	}, SpecTimeout(10*time.Minute))

	It("upgrades to 0.2.0 and then 0.3.0 with run bundle-upgrade, keeping the Foos", func(ctx context.Context) {
		previous := "0.1.0"
		for _, version := range []string{"0.2.0", "0.3.0"} {
			before := foosIn(ctx, storyNamespace)
			By("upgrading from " + previous + " to " + version)
			run(ctx, scratchDir("run-bundle"), tools.operatorSDK, "run", "bundle-upgrade", bundleImage(version),
				"--namespace", operatorNamespace, "--security-context-config", "restricted", "--timeout", "5m")
			expectCSVSucceeded(ctx, operatorNamespace, csvName(version))
			suite.ExpectGone(ctx, k8sClient, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{
				Namespace: operatorNamespace, Name: csvName(previous)}}, installTimeout)
			expectKeptAcrossUpgrade(ctx, upgrade{operatorNamespace: operatorNamespace, storyNamespace: storyNamespace,
				version: version, image: managerImage(version), stories: before})
			previous = version
		}
		// What OLM grants is measured against what this code uses: an earlier release's
		// bundle grants what its own code asked for (0.1.0's and 0.2.0's, also every verb on
		// Leases and a get of Foos, pods and Foo status).
		expectGrantedWhatTheCodeUses(ctx, operatorNamespace)
	}, SpecTimeout(15*time.Minute))

	It("is removed, CRD and Foos included, by operator-sdk cleanup", func(ctx context.Context) {
		run(ctx, scratchDir("run-bundle"), tools.operatorSDK, "cleanup", packageName, "--namespace", operatorNamespace, "--timeout", "5m")
		expectUninstalled(ctx, operatorNamespace, csvName("0.3.0"))
		Eventually(func(g Gomega) {
			var catalogs operatorsv1alpha1.CatalogSourceList
			g.Expect(k8sClient.List(ctx, &catalogs, client.InNamespace(operatorNamespace))).To(Succeed())
			g.Expect(names(catalogs.Items)).To(BeEmpty(), "CatalogSources left behind")
			var subscriptions operatorsv1alpha1.SubscriptionList
			g.Expect(k8sClient.List(ctx, &subscriptions, client.InNamespace(operatorNamespace))).To(Succeed())
			g.Expect(names(subscriptions.Items)).To(BeEmpty(), "Subscriptions left behind")
			var pods corev1.PodList
			g.Expect(k8sClient.List(ctx, &pods, client.InNamespace(operatorNamespace))).To(Succeed())
			g.Expect(names(pods.Items)).To(BeEmpty(), "pods left behind (the registry pod, the manager)")
		}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
		expectUninstalledAsDocumented(ctx, harness.WayOLMBundle, "", nil)
		deleteOperatorObjects(ctx)
	}, SpecTimeout(10*time.Minute))

	It("shows, when a bundle's manager image does not exist, the CSV waiting for its Deployment and the pod's event naming the image",
		func(ctx context.Context) {
			const namespace = "run-bundle-missing"
			createNamespaces(ctx, newNamespace(namespace, baselineLabels))
			missing := managerImage("0.3.0") + "-does-not-exist"
			bundle := imageTagBase + "-bundle:v0.3.0-missing-manager"
			publishEditedBundle(ctx, "0.3.0", bundle, func(csv map[string]any) {
				replaceManagerImage(csv, missing)
			})
			// run bundle waits for the CSV to succeed, which it never will: a shorter wait (the
			// last --timeout is the one taken).
			args := append([]string{"run", "bundle", bundle, "--install-mode", "OwnNamespace"}, runBundleFlags(namespace, indexImage)...)
			output, err := runTool(ctx, scratchDir("run-bundle"), tools.operatorSDK, append(args, "--timeout", "40s")...)
			Expect(err).To(HaveOccurred(), "run bundle of a bundle whose manager image does not exist")
			AddReportEntry("What operator-sdk run bundle says of a manager image that does not exist",
				output[strings.LastIndex(output, "level="):], ReportEntryVisibilityAlways)

			var csvSays string
			Eventually(func(g Gomega) {
				csv := &operatorsv1alpha1.ClusterServiceVersion{}
				g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: csvName("0.3.0")}, csv)).To(Succeed())
				csvSays = fmt.Sprintf("phase %s, reason %s: %s", csv.Status.Phase, csv.Status.Reason, csv.Status.Message)
				g.Expect(csv.Status.Phase).NotTo(Equal(operatorsv1alpha1.CSVPhaseSucceeded))
				g.Expect(csv.Status.Message).To(ContainSubstring(operatorDeployment), "the CSV's status names the Deployment it waits for")
			}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
			AddReportEntry("What the CSV says of a manager image that does not exist", csvSays, ReportEntryVisibilityAlways)
			expectImagePullFailure(ctx, namespace, missing)
			run(ctx, scratchDir("run-bundle"), tools.operatorSDK, "cleanup", packageName, "--namespace", namespace, "--timeout", "5m")
			expectUninstalled(ctx, namespace, csvName("0.3.0"))
			suite.ExpectGone(ctx, k8sClient, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: fooCRD}}, installTimeout)
			deleteOperatorObjects(ctx)
		}, SpecTimeout(10*time.Minute))

	// AllNamespaces is the mode above; each other mode installs the newest release on its
	// own and is cleaned up after.
	DescribeTable("installs in each other install mode and reconciles the Foos of the watched namespaces only",
		func(ctx context.Context, installMode, operator string, targets, unwatched []string) {
			namespaces := []*corev1.Namespace{newNamespace(operator, baselineLabels)}
			for _, namespace := range append(append([]string{}, targets...), unwatched...) {
				if namespace != operator {
					namespaces = append(namespaces, newNamespace(namespace, nil))
				}
			}
			createNamespaces(ctx, namespaces...)
			mode := installMode
			if installMode != "OwnNamespace" {
				mode += "=" + strings.Join(targets, ",")
			}
			run(ctx, scratchDir("run-bundle"), tools.operatorSDK, append([]string{"run", "bundle", bundleImage("0.3.0"), "--install-mode", mode},
				runBundleFlags(operator, indexImage)...)...)
			csv := expectCSVSucceeded(ctx, operator, csvName("0.3.0"))
			Expect(csv.Status.Reason).To(Equal(operatorsv1alpha1.CSVReasonInstallSuccessful))
			expectManagerRunning(ctx, operator, managerImage("0.3.0"))
			expectGrantedWhatTheCodeUses(ctx, operator, targets...)
			expectLeasesConfined(ctx, operator)
			// The CRD comes with the installation: the Foos come after it.
			for _, namespace := range append(append([]string{}, targets...), unwatched...) {
				Expect(k8sClient.Create(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "foo"},
					Spec: tutorialv1.FooSpec{Name: "jack"}})).To(Succeed())
				runFriend(ctx, namespace, "jack")
			}
			for _, namespace := range targets {
				expectHappy(ctx, operator, namespace, "foo", true)
			}
			for _, namespace := range unwatched {
				Consistently(func(g Gomega) {
					foo := &tutorialv1.Foo{}
					g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "foo"}, foo)).To(Succeed())
					g.Expect(foo.Status).To(BeZero(), "Foo %s/foo is outside the watched namespaces %v", namespace, targets)
				}).WithContext(ctx).WithTimeout(unwatchedQuietPeriod).Should(Succeed())
			}
			expectNoForbidden(ctx, operator)
			run(ctx, scratchDir("run-bundle"), tools.operatorSDK, "cleanup", packageName, "--namespace", operator, "--timeout", "5m")
			expectUninstalled(ctx, operator, csvName("0.3.0"))
			suite.ExpectGone(ctx, k8sClient, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: fooCRD}}, installTimeout)
			deleteOperatorObjects(ctx)
		},
		Entry("OwnNamespace", SpecTimeout(10*time.Minute), "OwnNamespace", "own", []string{"own"}, []string{"own-other"}),
		Entry("SingleNamespace", SpecTimeout(10*time.Minute), "SingleNamespace", "single", []string{"single-b"}, []string{"single", "single-other"}),
		Entry("MultiNamespace", SpecTimeout(10*time.Minute), "MultiNamespace", "multi", []string{"multi-b", "multi-c"}, []string{"multi", "multi-other"}),
	)
}

// replaceManagerImage sets the manager image of a CSV (as YAML decodes it) to image, in its
// Deployment and its containerImage annotation.
func replaceManagerImage(csv map[string]any, image string) {
	GinkgoHelper()
	annotations := csv["metadata"].(map[string]any)["annotations"].(map[string]any)
	annotations["containerImage"] = image
	deployments := csv["spec"].(map[string]any)["install"].(map[string]any)["spec"].(map[string]any)["deployments"].([]any)
	Expect(deployments).To(HaveLen(1), "the CSV's Deployments")
	spec := deployments[0].(map[string]any)["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	for _, container := range spec["containers"].([]any) {
		if container.(map[string]any)["name"] == "manager" {
			container.(map[string]any)["image"] = image
		}
	}
}
