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
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

// repoRoot is the project, where a user runs make.
var repoRoot = filepath.Join("..", "..")

func deployJourney() {
	const (
		operatorNamespace = "foo-operator-system"
		storyNamespace    = "deploy-story"
	)

	It("shows, with an image that does not exist, the pod's event naming it; and deploys it once IMG is right", func(ctx context.Context) {
		root, err := filepath.Abs(repoRoot)
		Expect(err).NotTo(HaveOccurred())
		missing := managerImage("0.3.0") + "-does-not-exist"
		run(ctx, root, "make", "--no-print-directory", "deploy", "IMG="+missing)
		expectImagePullFailure(ctx, operatorNamespace, missing)
		run(ctx, root, "make", "--no-print-directory", "deploy", "IMG="+managerImage("0.3.0"))
		Expect(resources.WaitDeploymentAvailable(ctx, clientset, operatorNamespace, operatorDeployment, installTimeout)).To(Succeed())
		expectManagerRunning(ctx, operatorNamespace, managerImage("0.3.0"))
	}, SpecTimeout(8*time.Minute))

	It("deploys 0.3.0 with make deploy; the Foos of kubectl create follow kubectl run and delete", func(ctx context.Context) {
		root, err := filepath.Abs(repoRoot)
		Expect(err).NotTo(HaveOccurred())
		run(ctx, root, "make", "--no-print-directory", "deploy", "IMG="+managerImage("0.3.0"))
		Expect(resources.WaitDeploymentAvailable(ctx, clientset, operatorNamespace, operatorDeployment, installTimeout)).To(Succeed())
		expectManagerRunning(ctx, operatorNamespace, managerImage("0.3.0"))

		createNamespaces(ctx, newNamespace(storyNamespace, nil))
		kubectl(ctx, "create", "-n", storyNamespace, "-f", filepath.Join(root, "config", "samples", "tutorial_v1_foo.yaml"))
		expectHappy(ctx, operatorNamespace, storyNamespace, "foo-01", false)
		kubectl(ctx, "run", "jack", "-n", storyNamespace, "--image="+cluster.Image("pause"))
		kubectl(ctx, "wait", "-n", storyNamespace, "--for=condition=Happy=true", "--timeout=60s", "foo/foo-01")
		expectHappy(ctx, operatorNamespace, storyNamespace, "foo-02", false)
		kubectl(ctx, "delete", "-n", storyNamespace, "pod", "jack")
		kubectl(ctx, "wait", "-n", storyNamespace, "--for=condition=Happy=false", "--timeout=60s", "foo/foo-01")
		expectNoForbidden(ctx, operatorNamespace)
		expectLeasesConfined(ctx, operatorNamespace)
	}, SpecTimeout(8*time.Minute))

	It("removes everything with make undeploy", func(ctx context.Context) {
		root, err := filepath.Abs(repoRoot)
		Expect(err).NotTo(HaveOccurred())
		rendered := run(ctx, root, tools.kustomize, "build", "config/default")
		run(ctx, root, "make", "--no-print-directory", "undeploy")
		suite.ExpectGone(ctx, k8sClient, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}}, installTimeout)
		expectUninstalledAsDocumented(ctx, harness.WayMakeDeploy, storyNamespace, nil)
		// Every cluster-scoped object config/default made is gone too.
		Expect(rendered).To(ContainSubstring("kind: ClusterRole"))
		var roles rbacv1.ClusterRoleList
		Expect(k8sClient.List(ctx, &roles)).To(Succeed())
		var bindings rbacv1.ClusterRoleBindingList
		Expect(k8sClient.List(ctx, &bindings)).To(Succeed())
		for _, object := range append(objectsNamed(roles.Items), objectsNamed(bindings.Items)...) {
			Expect(object).NotTo(HavePrefix("foo-operator-"), "%s is left behind", object)
		}
	}, SpecTimeout(5*time.Minute))
}

// objectsNamed lists the names of objects.
func objectsNamed[T any, PT interface {
	*T
	client.Object
}](objects []T) []string {
	result := make([]string, 0, len(objects))
	for i := range objects {
		result = append(result, PT(&objects[i]).GetName())
	}
	return result
}

// expectImagePullFailure waits until the operator's pod in namespace cannot start because
// its image does not exist, and checks that what a user reads says so and names the image:
// the container's waiting reason and message (`kubectl get pods`, `kubectl describe pod`) and
// the pod's Failed event. It reports both, as docs/troubleshooting.md quotes them.
func expectImagePullFailure(ctx context.Context, namespace, image string) {
	GinkgoHelper()
	var waiting, event string
	Eventually(func(g Gomega) {
		pods, err := installedOperator(namespace).Pods(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(pods).To(HaveLen(1), "the operator's pods")
		pod := pods[0]
		g.Expect(pod.Status.ContainerStatuses).To(HaveLen(1), "the status of the manager container: %s", resources.DescribePod(&pod))
		state := pod.Status.ContainerStatuses[0].State.Waiting
		g.Expect(state).NotTo(BeNil(), "the manager container waiting: %s", resources.DescribePod(&pod))
		g.Expect(state.Reason).To(BeElementOf("ErrImagePull", "ImagePullBackOff"))
		g.Expect(state.Message).To(ContainSubstring(image))
		waiting = state.Reason + ": " + state.Message
		var events corev1.EventList
		g.Expect(k8sClient.List(ctx, &events, client.InNamespace(namespace), client.MatchingFields{
			"involvedObject.name": pod.Name, "reason": "Failed"})).To(Succeed())
		g.Expect(events.Items).NotTo(BeEmpty(), "a Failed event of pod %s", pod.Name)
		event = events.Items[0].Message
		g.Expect(event).To(And(ContainSubstring(image), ContainSubstring("not found")), "the Failed event of pod %s", pod.Name)
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
	AddReportEntry("What the operator's pod says of an image that does not exist",
		"container waiting: "+waiting+"\nevent Failed: "+event, ReportEntryVisibilityAlways)
}
