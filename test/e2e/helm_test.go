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
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

// helmJourney installs the operator with Helm as a user of a cluster without OLM does, from
// every earlier release in turn: the chart of each release packaged and pushed to the registry
// as an OCI artifact (as `make publish` does, its manager image pinned by digest), `helm
// install` from there, `helm upgrade` to the newest, and `helm uninstall`, which keeps the CRD
// and every Foo.
func helmJourney() {
	const (
		release           = packageName
		operatorNamespace = "foo-helm"
	)
	storyNamespace := func(from string) string { return "helm-story-" + strings.ReplaceAll(from, ".", "-") }
	stories := map[string]map[string]*tutorialv1.Foo{}

	BeforeAll(func(ctx context.Context) {
		namespaces := make([]*corev1.Namespace, 0, 1+len(earlierReleases))
		namespaces = append(namespaces, newNamespace(operatorNamespace, restrictedLabels))
		for _, from := range earlierReleases {
			namespaces = append(namespaces, newNamespace(storyNamespace(from), nil))
		}
		createNamespaces(ctx, namespaces...)
		DeferCleanup(func(ctx context.Context) {
			_, _ = runTool(ctx, workDir, tools.helm, "uninstall", release, "--namespace", operatorNamespace, "--ignore-not-found")
			deleteCRD(ctx)
		})
		pushCharts(ctx, append(slices.Clone(earlierReleases), newestRelease)...)
	}, NodeTimeout(5*time.Minute))

	for _, from := range earlierReleases {
		It("installs "+from+" with helm install from the registry, and the operator plays the story", func(ctx context.Context) {
			run(ctx, workDir, tools.helm, "install", release, chart(), "--version", from, "--namespace", operatorNamespace)
			expectManagerRunning(ctx, operatorNamespace, pinnedManagerImage(ctx, from))
			expectCRDEstablished(ctx)
			playStory(ctx, operatorNamespace, storyNamespace(from))
			stories[from] = foosIn(ctx, storyNamespace(from))
		}, SpecTimeout(8*time.Minute))

		It("upgrades "+from+" to "+newestRelease+" with helm upgrade, keeping every Foo", func(ctx context.Context) {
			// From 0.3.0 the chart selects the manager's pods by release too, and a Deployment's
			// selector cannot change: the chart's README has the old Deployment removed first, its
			// pods left running for the new one to adopt and replace.
			run(ctx, workDir, tools.kubectl, "--namespace", operatorNamespace, "delete", "deployment", operatorDeployment, "--cascade=orphan")
			run(ctx, workDir, tools.helm, "upgrade", release, chart(), "--version", newestRelease, "--namespace", operatorNamespace)
			expectKeptAcrossUpgrade(ctx, upgrade{operatorNamespace: operatorNamespace, storyNamespace: storyNamespace(from),
				version: newestRelease, image: pinnedManagerImage(ctx, newestRelease), stories: stories[from]})
		}, SpecTimeout(8*time.Minute))

		It("passes helm test once upgraded from "+from+": the operator serves a Foo in a namespace of the test's own", func(ctx context.Context) {
			expectHelmTestPasses(ctx, tools.helm, release, operatorNamespace, "foo-operator-selftest-")
		}, SpecTimeout(5*time.Minute))

		It("removes the operator upgraded from "+from+" with helm uninstall, and keeps the CRD and every Foo", func(ctx context.Context) {
			// The pods are found by the Deployment's selector as it was before the uninstall: once
			// the Deployment is gone, it can no longer say which pods were its own.
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
			expectUninstalledAsDocumented(ctx, harness.WayHelm, storyNamespace(from), stories[from])
			// The next release installs on a cluster without the operator's CRD, as the first did.
			deleteCRD(ctx)
		}, SpecTimeout(5*time.Minute))
	}
}

// pinnedManagerImage is the manager image of version as `make publish` pins it: by its digest
// in the registry.
func pinnedManagerImage(ctx context.Context, version string) string {
	GinkgoHelper()
	return strings.TrimSpace(run(ctx, workDir, tools.crane, "digest", "--full-ref", managerImage(version)))
}

// chart is the chart's OCI reference: `charts` beside the images (the Makefile's CHART_REPO).
func chart() string { return "oci://" + path.Dir(imageTagBase) + "/charts/" + packageName }

// pushCharts packages the chart of each version and pushes it to the registry as `make
// publish` does, its manager image pinned by digest.
func pushCharts(ctx context.Context, versions ...string) {
	GinkgoHelper()
	for _, version := range versions {
		By("packaging the chart of " + version + " and pushing it with helm push")
		output := run(ctx, tools.checkout, "make", "--no-print-directory", "chart-build", "chart-push",
			"VERSION="+version, "USE_IMAGE_DIGESTS=true")
		Expect(output).To(ContainSubstring("Pushed: "+strings.TrimPrefix(chart(), "oci://")+":"+version),
			"helm push's report of the chart of %s", version)
	}
}

// helmTeam is one release of the chart beside another: its operator in a namespace of its
// own, watching one other namespace, installed with helm (Helm 4 or Helm 3).
type helmTeam struct {
	release, operatorNamespace, foosNamespace string
	helm                                      func() string
}

// deployment and serviceAccount name the release's manager Deployment and ServiceAccount:
// its name holds the chart's, so the chart prefixes its objects with it alone.
func (t helmTeam) deployment() string     { return t.release + "-controller-manager" }
func (t helmTeam) serviceAccount() string { return t.release + "-controller-manager" }

// helmSideBySideJourney runs two releases of the chart side by side, as two teams sharing a
// cluster do with the chart README's commands: each in a namespace of its own, watching its own
// namespace with namespaced RBAC; the first installs the CRD with Helm 4, the second does not,
// with Helm 3. Each Foo is
// served by its team's operator alone, each operator is refused pods elsewhere, a rollback
// and a refused upgrade behave, and helm uninstall leaves the CRD and the Foos and nothing else.
func helmSideBySideJourney() {
	teams := []helmTeam{
		{release: "team-a-foo-operator", operatorNamespace: "team-a-operator", foosNamespace: "team-a-foos", helm: func() string { return tools.helm }},
		// Helm 3, which users still run: the chart installs with both.
		{release: "team-b-foo-operator", operatorNamespace: "team-b-operator", foosNamespace: "team-b-foos", helm: func() string { return tools.helm3 }},
	}
	var stories map[string]map[string]*tutorialv1.Foo

	BeforeAll(func(ctx context.Context) {
		for _, team := range teams {
			createNamespaces(ctx, newNamespace(team.operatorNamespace, restrictedLabels), newNamespace(team.foosNamespace, nil))
			installedOperators.Store(team.operatorNamespace, &suite.InstalledOperator{Client: k8sClient, Clientset: clientset,
				Namespace: team.operatorNamespace, Deployment: team.deployment(), LogDir: keptLogDir()})
		}
		DeferCleanup(func(ctx context.Context) {
			for _, team := range teams {
				_, _ = runTool(ctx, workDir, team.helm(), "uninstall", team.release, "--namespace", team.operatorNamespace, "--ignore-not-found")
				installedOperators.Delete(team.operatorNamespace)
			}
			deleteCRD(ctx)
		})
		pushCharts(ctx, newestRelease)
	}, NodeTimeout(5*time.Minute))

	It("installs two releases, each watching its own namespace with Roles there", func(ctx context.Context) {
		for i, team := range teams {
			args := []string{"install", team.release, chart(), "--version", newestRelease, "--namespace", team.operatorNamespace,
				"--set", "watchNamespaces={" + team.foosNamespace + "}", "--set", "rbac.namespaced=true"}
			if i > 0 {
				args = append(args, "--set", "crd.enabled=false")
			}
			output := run(ctx, workDir, team.helm(), args...)
			Expect(output).To(ContainSubstring("It watches namespaces "+team.foosNamespace), "the release's notes")
		}
		for _, team := range teams {
			expectManagerRunning(ctx, team.operatorNamespace, pinnedManagerImage(ctx, newestRelease))
		}
		expectCRDEstablished(ctx)
	}, SpecTimeout(5*time.Minute))

	It("serves each team's Foos by that team's operator alone", func(ctx context.Context) {
		stories = map[string]map[string]*tutorialv1.Foo{}
		for _, team := range teams {
			playStory(ctx, team.operatorNamespace, team.foosNamespace)
			stories[team.foosNamespace] = foosIn(ctx, team.foosNamespace)
		}
		for i, team := range teams {
			other := teams[1-i]
			By(fmt.Sprintf("stopping %s's operator: %s's does not take its Foos", team.release, other.release))
			run(ctx, workDir, tools.kubectl, "--namespace", team.operatorNamespace, "scale", "deployment", team.deployment(), "--replicas=0")
			// A pod being deleted still runs, and reconciles, until it is gone: wait for none at all.
			deployment := &appsv1.Deployment{}
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: team.operatorNamespace, Name: team.deployment()}, deployment)).To(Succeed())
			selector, err := metav1.LabelSelectorAsSelector(deployment.Spec.Selector)
			Expect(err).NotTo(HaveOccurred())
			Eventually(func() ([]string, error) {
				var pods corev1.PodList
				err := k8sClient.List(ctx, &pods, client.InNamespace(team.operatorNamespace), client.MatchingLabelsSelector{Selector: selector})
				return names(pods.Items), err
			}).WithContext(ctx).WithTimeout(installTimeout).Should(BeEmpty(), "the pods of %s's operator, terminating ones too, scaled to 0", team.release)
			Expect(k8sClient.Create(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: team.foosNamespace, Name: "unserved"},
				Spec: tutorialv1.FooSpec{Name: "jack"}})).To(Succeed())
			runFriend(ctx, team.foosNamespace, "jack")
			Consistently(func(g Gomega) {
				foo := &tutorialv1.Foo{}
				g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: team.foosNamespace, Name: "unserved"}, foo)).To(Succeed())
				g.Expect(foo.Status).To(BeZero(), "Foo %s/unserved, whose operator is stopped", team.foosNamespace)
			}).WithContext(ctx).WithTimeout(unwatchedQuietPeriod).Should(Succeed())

			By("starting " + team.release + "'s operator again: it takes its Foos back")
			run(ctx, workDir, tools.kubectl, "--namespace", team.operatorNamespace, "scale", "deployment", team.deployment(), "--replicas=1")
			expectHappy(ctx, team.operatorNamespace, team.foosNamespace, "unserved", true)
			Expect(k8sClient.Delete(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: team.foosNamespace, Name: "unserved"}})).To(Succeed())
			deleteFriend(ctx, team.foosNamespace, "jack")
			expectNoForbidden(ctx, team.operatorNamespace)
		}
	}, SpecTimeout(10*time.Minute))

	It("passes helm test for each release, in the namespace it watches", func(ctx context.Context) {
		for _, team := range teams {
			expectHelmTestPasses(ctx, team.helm(), team.release, team.operatorNamespace, team.foosNamespace)
		}
	}, SpecTimeout(5*time.Minute))

	It("refuses each operator's ServiceAccount the pods outside its namespace", func(ctx context.Context) {
		for i, team := range teams {
			as := "--as=system:serviceaccount:" + team.operatorNamespace + ":" + team.serviceAccount()
			Expect(run(ctx, workDir, tools.kubectl, "auth", "can-i", "list", "pods", as, "--namespace", team.foosNamespace)).
				To(HavePrefix("yes"), "%s listing the pods of its own namespace", team.release)
			for _, elsewhere := range [][]string{{"--namespace", teams[1-i].foosNamespace}, {"--namespace", "default"}, {"--all-namespaces"}} {
				output, err := runTool(ctx, workDir, tools.kubectl, append([]string{"auth", "can-i", "list", "pods", as}, elsewhere...)...)
				Expect(err).To(HaveOccurred(), "kubectl auth can-i exits 1 on no")
				Expect(output).To(HavePrefix("no"), "%s listing pods %v", team.release, elsewhere)
			}
		}
	}, SpecTimeout(2*time.Minute))

	It("rolls an upgrade back with helm rollback", func(ctx context.Context) {
		team := teams[0]
		run(ctx, workDir, tools.helm, "upgrade", team.release, chart(), "--version", newestRelease, "--namespace", team.operatorNamespace,
			"--reuse-values", "--set", "manager.replicas=2", "--wait")
		expectReplicas(ctx, team, 2)
		run(ctx, workDir, tools.helm, "rollback", team.release, "1", "--namespace", team.operatorNamespace, "--wait")
		expectReplicas(ctx, team, 1)
		expectSameFoos(ctx, team.foosNamespace, stories[team.foosNamespace])
		expectStillFollows(ctx, team.operatorNamespace, team.foosNamespace)
	}, SpecTimeout(8*time.Minute))

	It("refuses an upgrade with a value the schema does not accept, and changes nothing", func(ctx context.Context) {
		team := teams[0]
		deployment := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: team.operatorNamespace, Name: team.deployment()}, deployment)).To(Succeed())
		// The release's revisions, each with its status and time: Helm records a failed upgrade
		// as a revision of its own.
		history := func() string {
			return run(ctx, workDir, tools.helm, "history", team.release, "--namespace", team.operatorNamespace, "--output", "json")
		}
		before := history()
		output, err := runTool(ctx, workDir, tools.helm, "upgrade", team.release, chart(), "--version", newestRelease,
			"--namespace", team.operatorNamespace, "--reuse-values", "--set", "manager.replicas=abc")
		Expect(err).To(HaveOccurred(), "helm upgrade with manager.replicas=abc")
		Expect(output).To(ContainSubstring("replicas"), "helm's refusal names the value")
		Expect(history()).To(Equal(before), "the release's history after the refused upgrade")
		after := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(deployment), after)).To(Succeed())
		Expect(after.Generation).To(Equal(deployment.Generation), "the Deployment's generation after the refused upgrade")
	}, SpecTimeout(2*time.Minute))

	It("removes everything but the CRD and the Foos with helm uninstall", func(ctx context.Context) {
		releases := make([]string, 0, len(teams))
		for _, team := range teams {
			run(ctx, workDir, team.helm(), "uninstall", team.release, "--namespace", team.operatorNamespace, "--wait")
			releases = append(releases, team.release)
		}
		selector := "app.kubernetes.io/instance in (" + strings.Join(releases, ",") + ")"
		Eventually(func() ([]string, error) {
			return suite.LabelledObjects(ctx, cluster.RESTConfig(), selector)
		}).WithContext(ctx).WithTimeout(installTimeout).Should(Equal([]string{"customresourcedefinitions.apiextensions.k8s.io/" + fooCRD}),
			"what the releases made (%s) of every kind, after helm uninstall", selector)
		for _, team := range teams {
			expectSameFoos(ctx, team.foosNamespace, stories[team.foosNamespace])
		}
	}, SpecTimeout(5*time.Minute))
}

// expectHelmTestPasses runs `helm test` on the release with helm, expects the chart's
// self-test to pass, in the namespace that starts with fooNamespace (the one the release
// watches, or one the test makes) as its log says, and expects the test's objects gone
// afterwards. Helm 3 deletes a passed test's pod before --logs reads it, so under Helm 3 the
// test's report alone is read.
func expectHelmTestPasses(ctx context.Context, helm, release, namespace, fooNamespace string) {
	GinkgoHelper()
	args := []string{"test", release, "--namespace", namespace}
	if helm != tools.helm3 {
		args = append(args, "--logs")
	}
	output := run(ctx, workDir, helm, args...)
	Expect(output).To(MatchRegexp(`Phase: +Succeeded`), "helm test's report of the self-test's pod")
	Expect(output).NotTo(MatchRegexp(`Phase: +Failed`), "helm test's report of the self-test's objects")
	if helm != tools.helm3 {
		Expect(output).To(MatchRegexp(`"msg":"The operator serves Foos","namespace":"`+regexp.QuoteMeta(fooNamespace)),
			"the self-test's log, which helm test --logs shows")
	}
	selector := "app.kubernetes.io/component=selftest,app.kubernetes.io/instance=" + release
	Eventually(func() ([]string, error) {
		return suite.LabelledObjects(ctx, cluster.RESTConfig(), selector)
	}).WithContext(ctx).WithTimeout(installTimeout).Should(BeEmpty(), "the self-test's objects (%s) after it passed", selector)
}

// expectReplicas waits until the team's Deployment asks for replicas and has them ready.
func expectReplicas(ctx context.Context, team helmTeam, replicas int32) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		deployment := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: team.operatorNamespace, Name: team.deployment()}, deployment)).To(Succeed())
		g.Expect(*deployment.Spec.Replicas).To(Equal(replicas), "the replicas %s's Deployment asks for", team.release)
		g.Expect(deployment.Status.ReadyReplicas).To(Equal(replicas), "the ready replicas of %s's Deployment", team.release)
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
}
