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
	"path"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/test/harness/suite"
)

// helmJourney installs the operator with Helm as a user of a cluster without OLM does: the
// chart of each release packaged and pushed to the registry as an OCI artifact (as `make
// publish` does, its manager image pinned by digest), `helm install` from there, `helm
// upgrade` to the next release, and `helm uninstall`, which keeps the CRD and every Foo.
func helmJourney() {
	const (
		release           = packageName
		operatorNamespace = "foo-helm"
		storyNamespace    = "helm-story"
	)
	// chart is the chart's OCI reference: `charts` beside the images (the Makefile's CHART_REPO).
	chart := func() string { return "oci://" + path.Dir(imageTagBase) + "/charts/" + packageName }
	var stories map[string]*tutorialv1.Foo

	BeforeAll(func(ctx context.Context) {
		createNamespaces(ctx, newNamespace(operatorNamespace, restrictedLabels), newNamespace(storyNamespace, nil))
		DeferCleanup(func(ctx context.Context) {
			_, _ = runTool(ctx, workDir, tools.helm, "uninstall", release, "--namespace", operatorNamespace, "--ignore-not-found")
			deleteCRD(ctx)
		})
		for _, version := range []string{"0.2.0", "0.3.0"} {
			By("packaging the chart of " + version + " and pushing it with helm push")
			output := run(ctx, tools.checkout, "make", "--no-print-directory", "chart-build", "chart-push",
				"VERSION="+version, "USE_IMAGE_DIGESTS=true")
			Expect(output).To(ContainSubstring("Pushed: "+strings.TrimPrefix(chart(), "oci://")+":"+version),
				"helm push's report of the chart of %s", version)
		}
	}, NodeTimeout(5*time.Minute))

	It("installs 0.2.0 with helm install from the registry, and the operator plays the story", func(ctx context.Context) {
		run(ctx, workDir, tools.helm, "install", release, chart(), "--version", "0.2.0", "--namespace", operatorNamespace)
		expectManagerRunning(ctx, operatorNamespace, pinnedManagerImage(ctx, "0.2.0"))
		expectCRDEstablished(ctx)
		playStory(ctx, operatorNamespace, storyNamespace)
		stories = foosIn(ctx, storyNamespace)
	}, SpecTimeout(8*time.Minute))

	It("upgrades to 0.3.0 with helm upgrade, keeping every Foo", func(ctx context.Context) {
		run(ctx, workDir, tools.helm, "upgrade", release, chart(), "--version", "0.3.0", "--namespace", operatorNamespace)
		expectKeptAcrossUpgrade(ctx, upgrade{operatorNamespace: operatorNamespace, storyNamespace: storyNamespace,
			version: "0.3.0", image: pinnedManagerImage(ctx, "0.3.0"), stories: stories})
	}, SpecTimeout(8*time.Minute))

	It("removes the operator with helm uninstall, and keeps the CRD and every Foo", func(ctx context.Context) {
		// The pods are found by the Deployment's selector as it was before the uninstall: once the
		// Deployment is gone, it can no longer say which pods were its own.
		deployment := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: operatorNamespace, Name: operatorDeployment}, deployment)).To(Succeed())
		selector, err := metav1.LabelSelectorAsSelector(deployment.Spec.Selector)
		Expect(err).NotTo(HaveOccurred())
		run(ctx, workDir, tools.helm, "uninstall", release, "--namespace", operatorNamespace, "--wait")
		suite.ExpectGone(ctx, k8sClient, deployment, installTimeout)
		Eventually(func() ([]string, error) {
			var pods corev1.PodList
			err := k8sClient.List(ctx, &pods, client.InNamespace(operatorNamespace), client.MatchingLabelsSelector{Selector: selector})
			return names(pods.Items), err
		}).WithContext(ctx).WithTimeout(installTimeout).Should(BeEmpty(), "the operator's pods (%s) after helm uninstall", selector)
		crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: fooCRD}}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(crd), crd)).To(Succeed(), "the CRD, kept by the chart")
		Expect(crd.DeletionTimestamp).To(BeNil(), "the CRD is being deleted")
		expectSameFoos(ctx, storyNamespace, stories)
	}, SpecTimeout(5*time.Minute))
}

// pinnedManagerImage is the manager image of version as `make publish` pins it: by its digest
// in the registry.
func pinnedManagerImage(ctx context.Context, version string) string {
	GinkgoHelper()
	return strings.TrimSpace(run(ctx, workDir, tools.crane, "digest", "--full-ref", managerImage(version)))
}
