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
	"bufio"
	"context"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
	"github.com/example/foo-operator/test/testcluster"
)

// playStory plays the operator's story in namespace with pods that really run, the operator
// installed in operatorNamespace: foo-01 looks for jack, foo-02 for joe; jack comes and
// foo-01 is happy; foo-02 turns to jack and is happy too; jack goes and both are unhappy.
// The Foos stay, for the steps after.
func playStory(ctx context.Context, operatorNamespace, namespace string) {
	GinkgoHelper()
	By("playing the story in " + namespace + ": foo-01 looks for jack, foo-02 for joe")
	for name, friend := range map[string]string{"foo-01": "jack", "foo-02": "joe"} {
		Expect(k8sClient.Create(ctx, &tutorialv1.Foo{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Spec:       tutorialv1.FooSpec{Name: friend},
		})).To(Succeed())
	}
	expectHappy(ctx, operatorNamespace, namespace, "foo-01", false)
	expectHappy(ctx, operatorNamespace, namespace, "foo-02", false)

	By("running pod jack")
	runFriend(ctx, namespace, "jack")
	expectHappy(ctx, operatorNamespace, namespace, "foo-01", true)
	expectHappy(ctx, operatorNamespace, namespace, "foo-02", false)

	By("pointing foo-02 at jack")
	Expect(k8sClient.Patch(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "foo-02"}},
		client.RawPatch(types.MergePatchType, []byte(`{"spec":{"name":"jack"}}`)))).To(Succeed())
	expectHappy(ctx, operatorNamespace, namespace, "foo-02", true)

	By("deleting jack")
	deleteFriend(ctx, namespace, "jack")
	expectHappy(ctx, operatorNamespace, namespace, "foo-01", false)
	expectHappy(ctx, operatorNamespace, namespace, "foo-02", false)
}

// expectStillFollows checks that the operator in operatorNamespace still reconciles the
// story's Foos of namespace: jack comes back, both are happy; jack goes, both are not.
func expectStillFollows(ctx context.Context, operatorNamespace, namespace string) {
	GinkgoHelper()
	runFriend(ctx, namespace, "jack")
	expectHappy(ctx, operatorNamespace, namespace, "foo-01", true)
	expectHappy(ctx, operatorNamespace, namespace, "foo-02", true)
	deleteFriend(ctx, namespace, "jack")
	expectHappy(ctx, operatorNamespace, namespace, "foo-01", false)
	expectHappy(ctx, operatorNamespace, namespace, "foo-02", false)
}

// runFriend runs pod name (the pause image of the registry) in namespace until it runs.
func runFriend(ctx context.Context, namespace, name string) {
	GinkgoHelper()
	runRestrictedPod(ctx, namespace, name, nil, corev1.Container{Name: "pause", Image: cluster.Image("pause")})
}

// runRestrictedPod runs a pod of the one container, as the restricted Pod Security Standard
// has it, in namespace until it runs.
func runRestrictedPod(ctx context.Context, namespace, name string, labels map[string]string, container corev1.Container) {
	GinkgoHelper()
	container.SecurityContext = &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: corev1.PodSpec{
			// pause stops at SIGTERM: the grace period changes nothing for the pod, but the
			// namespace controller waits that long before it looks again at a namespace
			// being deleted with the pod in it.
			TerminationGracePeriodSeconds: ptr.To[int64](1),
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65535),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{container},
		},
	}
	Expect(k8sClient.Create(ctx, pod)).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		g.Expect(pod.Status.Phase).To(Equal(corev1.PodRunning), "pod %s: %s", name, resources.DescribePod(pod))
	}).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(Succeed())
}

// deleteFriend deletes pod name gracefully and waits until it is gone.
func deleteFriend(ctx context.Context, namespace, name string) {
	GinkgoHelper()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	Expect(k8sClient.Delete(ctx, pod)).To(Succeed())
	suite.ExpectGone(ctx, k8sClient, pod, operatorStepTimeout)
}

// expectHappy waits until the operator has set the Foo's status (suite.ExpectFooStatus). A
// denied request of the operator stops the wait with it.
func expectHappy(ctx context.Context, operatorNamespace, namespace, name string, happy bool) {
	GinkgoHelper()
	suite.ExpectFooStatus(ctx, k8sClient, types.NamespacedName{Namespace: namespace, Name: name}, suite.FooStatus{
		Happy: happy, Timeout: operatorStepTimeout,
		Stop: func() string {
			if denied := persistentDenials(ctx, operatorNamespace); len(denied) > 0 {
				return "the operator was denied requests, so its CSV's RBAC does not cover what it does:\n" + strings.Join(denied, "\n")
			}
			return ""
		},
	})
}

// foosIn returns the Foos of namespace, by name.
func foosIn(ctx context.Context, namespace string) map[string]*tutorialv1.Foo {
	GinkgoHelper()
	var foos tutorialv1.FooList
	Expect(k8sClient.List(ctx, &foos, client.InNamespace(namespace))).To(Succeed())
	byName := map[string]*tutorialv1.Foo{}
	for i := range foos.Items {
		byName[foos.Items[i].Name] = &foos.Items[i]
	}
	return byName
}

// expectSameFoos checks that the Foos of namespace are still those of before: the same
// objects (UIDs) with the same specs, none added or lost.
func expectSameFoos(ctx context.Context, namespace string, before map[string]*tutorialv1.Foo) {
	GinkgoHelper()
	now := foosIn(ctx, namespace)
	Expect(slices.Sorted(maps.Keys(now))).To(Equal(slices.Sorted(maps.Keys(before))), "the Foos of %s, by name", namespace)
	for name, foo := range before {
		Expect(now[name].UID).To(Equal(foo.UID), "Foo %s was replaced", name)
		Expect(now[name].Spec).To(Equal(foo.Spec), "the spec of Foo %s changed", name)
	}
}

// expectUninstalledAsDocumented checks, once the operator installed one way in is
// uninstalled, what the README's table of the ways to install says that uninstall removes:
// either the CRD stays, and every Foo of namespace as it was before, or the CRD is gone, and
// every Foo with it.
func expectUninstalledAsDocumented(ctx context.Context, way, namespace string, before map[string]*tutorialv1.Foo) {
	GinkgoHelper()
	keepsFoos, err := harness.UninstallKeepsFoos(way)
	Expect(err).NotTo(HaveOccurred())
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: fooCRD}}
	if !keepsFoos {
		suite.ExpectGone(ctx, k8sClient, crd, installTimeout)
		return
	}
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(crd), crd)).To(Succeed(), "the CRD, which the README says %s keeps", way)
	Expect(crd.DeletionTimestamp).To(BeNil(), "the CRD, which the README says %s keeps, is being deleted", way)
	Expect(before).NotTo(BeEmpty(), "the Foos of %s before the uninstall: the check needs some", namespace)
	expectSameFoos(ctx, namespace, before)
}

// patchHold sets the hold-upgrades annotation of the story's foo-02 in namespace to reason,
// or removes it if reason is empty.
func patchHold(ctx context.Context, namespace, reason string) {
	GinkgoHelper()
	var value any
	if reason != "" {
		value = reason
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"annotations": map[string]any{tutorialv1.HoldUpgradesAnnotation: value}}})
	Expect(err).NotTo(HaveOccurred())
	Expect(k8sClient.Patch(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "foo-02"}},
		client.RawPatch(types.MergePatchType, patch))).To(Succeed())
}

// auditLogName is the apiserver's audit log, in the cluster's logs, which records who wrote
// Foo statuses.
const auditLogName = "kube-apiserver-audit.jsonl"

// auditPolicy records the writes to Foo statuses, and nothing else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  verbs: ["update", "patch"]
  resources:
  - group: tutorial.my.domain
    resources: ["foos/status"]
- level: None
`

// statusWriters lists the users whose writes to the status of Foo namespace/name succeeded.
func statusWriters(namespace, name string) []string {
	GinkgoHelper()
	audit, err := testcluster.As[testcluster.AuditLogReader](cluster, testcluster.AuditLog)
	Expect(err).NotTo(HaveOccurred())
	file, err := os.Open(audit.AuditLogPath())
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = file.Close() }()
	users := map[string]bool{}
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for scanner.Scan() {
		var event struct {
			Stage string `json:"stage"`
			User  struct {
				Username string `json:"username"`
			} `json:"user"`
			ObjectRef struct {
				Resource, Namespace, Name, Subresource string
			} `json:"objectRef"`
			ResponseStatus struct {
				Code int `json:"code"`
			} `json:"responseStatus"`
		}
		Expect(json.Unmarshal(scanner.Bytes(), &event)).To(Succeed())
		ref := event.ObjectRef
		if event.Stage == "ResponseComplete" && ref.Resource == "foos" && ref.Subresource == "status" &&
			ref.Namespace == namespace && ref.Name == name && event.ResponseStatus.Code < 300 {
			users[event.User.Username] = true
		}
	}
	Expect(scanner.Err()).NotTo(HaveOccurred())
	result := make([]string, 0, len(users))
	for user := range users {
		result = append(result, user)
	}
	sort.Strings(result)
	return result
}
