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
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
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
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// operatorStepTimeout bounds how long the operator may take to follow one change; it
// reacts in well under a second when it runs.
const operatorStepTimeout = time.Minute

// unwatchedQuietPeriod is how long a Foo outside the watched namespaces must stay untouched
// while the operator reconciles the watched ones.
const unwatchedQuietPeriod = 3 * time.Second

var _ = Describe("The operator under OLM", Ordered, func() {
	// The AllNamespaces installation that the lifecycle scenarios install, upgrade, hold and
	// uninstall; the story's Foos live in storyNamespace.
	const (
		operatorNamespace = "operators"
		storyNamespace    = "story"
	)
	var (
		committed *testCatalog
		// The story's Foos, as they are before every upgrade.
		stories map[string]*tutorialv1.Foo
	)

	BeforeAll(func() {
		var err error
		committed, err = loadCommittedCatalog()
		Expect(err).NotTo(HaveOccurred())
	})

	It("installs 0.1.0 from the catalog for all namespaces, and the operator plays the story", func(ctx SpecContext) {
		first, err := committed.upTo("0.1.0")
		Expect(err).NotTo(HaveOccurred())
		catalogs.publish(ctx, first)
		createNamespace(ctx, operatorNamespace)
		subscribe(ctx, operatorNamespace, nil, csvName("0.1.0"))
		expectInstalled(ctx, operatorNamespace, "0.1.0")

		By("playing the story: foo-01 looks for jack, foo-02 for joe")
		createNamespace(ctx, storyNamespace)
		for name, friend := range map[string]string{"foo-01": "jack", "foo-02": "joe"} {
			Expect(k8sClient.Create(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: storyNamespace, Name: name},
				Spec: tutorialv1.FooSpec{Name: friend}})).To(Succeed())
		}
		expectHappy(ctx, storyNamespace, "foo-01", false)
		expectHappy(ctx, storyNamespace, "foo-02", false)
		createPod(ctx, storyNamespace, "jack")
		expectHappy(ctx, storyNamespace, "foo-01", true)
		expectHappy(ctx, storyNamespace, "foo-02", false)
		By("pointing foo-02 at jack, then deleting jack and creating it again")
		Expect(k8sClient.Patch(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: storyNamespace, Name: "foo-02"}},
			client.RawPatch(types.MergePatchType, []byte(`{"spec":{"name":"jack"}}`)))).To(Succeed())
		expectHappy(ctx, storyNamespace, "foo-02", true)
		deletePod(ctx, storyNamespace, "jack")
		expectHappy(ctx, storyNamespace, "foo-01", false)
		expectHappy(ctx, storyNamespace, "foo-02", false)
		createPod(ctx, storyNamespace, "jack")
		expectHappy(ctx, storyNamespace, "foo-01", true)
		expectHappy(ctx, storyNamespace, "foo-02", true)
		stories = foosIn(ctx, storyNamespace)

		By("checking that the statuses were written by the operator as the CSV's ServiceAccount")
		Expect(statusWriters(storyNamespace, "foo-01")).To(ConsistOf(
			"system:serviceaccount:" + operatorNamespace + ":" + operatorServiceAccount))
	}, SpecTimeout(8*time.Minute))

	It("upgrades through the channel to 0.2.0 and 0.3.0, keeping the Foos", func(ctx SpecContext) {
		previous := "0.1.0"
		for _, version := range []string{"0.2.0", "0.3.0"} {
			catalog, err := committed.upTo(version)
			Expect(err).NotTo(HaveOccurred())
			catalogs.publish(ctx, catalog)
			csv := expectInstalled(ctx, operatorNamespace, version)
			Expect(csv.Spec.Replaces).To(Equal(csvName(previous)), "CSV %s replaces", csv.Name)
			expectGone(ctx, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{
				Namespace: operatorNamespace, Name: csvName(previous)}}, installTimeout)

			By("checking the CRD of " + version + " is served: it has status.friend since 0.2.0")
			crd := &apiextensionsv1.CustomResourceDefinition{}
			Expect(k8sClient.Get(ctx, types.NamespacedName{Name: fooCRD}, crd)).To(Succeed())
			Expect(crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"].Properties).To(HaveKey("friend"))

			By("checking the Foos are intact")
			expectSameFoos(ctx, storyNamespace, stories)
			expectFriend(ctx, storyNamespace, "foo-01", "jack")
			expectFriend(ctx, storyNamespace, "foo-02", "jack")

			// The manager of the new release started while the RBAC of the release it
			// replaces still existed; restarted, as a container can be at any time, it has
			// only its own CSV's permissions to work with.
			By("restarting the manager of " + version + " once the RBAC of " + previous + " is gone")
			expectNoRBACOf(ctx, operatorNamespace, csvName(previous))
			Expect(kubelet.restartManagers(operatorNamespace)).To(Succeed())
			Eventually(kubelet.ready).WithArguments(operatorNamespace).WithContext(ctx).
				WithTimeout(operatorStepTimeout).Should(Equal(1), "the restarted manager is not ready")

			By("checking the statuses still follow pods")
			deletePod(ctx, storyNamespace, "jack")
			expectHappy(ctx, storyNamespace, "foo-01", false)
			expectHappy(ctx, storyNamespace, "foo-02", false)
			createPod(ctx, storyNamespace, "jack")
			expectFriend(ctx, storyNamespace, "foo-01", "jack")
			expectFriend(ctx, storyNamespace, "foo-02", "jack")
			previous = version
		}
		expectNoForbidden(operatorNamespace)
	}, SpecTimeout(8*time.Minute))

	It("holds the next upgrade while a Foo asks it to, and completes it once the hold is removed", func(ctx SpecContext) {
		const head, next = "0.3.0", "0.4.0"
		By("holding upgrades on foo-02")
		patchHold(ctx, storyNamespace, "foo-02", "e2e: keep the current release")
		Eventually(func(g Gomega) {
			condition := &operatorsv2.OperatorCondition{}
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: operatorNamespace, Name: csvName(head)}, condition)).To(Succeed())
			upgradeable := meta.FindStatusCondition(condition.Status.Conditions, operatorsv2.Upgradeable)
			g.Expect(upgradeable).NotTo(BeNil(), "OLM shows no Upgradeable condition in OperatorCondition %s", condition.Name)
			g.Expect(upgradeable.Status).To(Equal(metav1.ConditionFalse), "Upgradeable: %s", upgradeable.Message)
		}).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(Succeed())

		By("publishing release " + next + ", which replaces " + head)
		withNext, err := committed.withCopyOfHead(next)
		Expect(err).NotTo(HaveOccurred())
		catalogs.publish(ctx, withNext)
		nextCSV := &operatorsv1alpha1.ClusterServiceVersion{}
		heldPending := func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: operatorNamespace, Name: csvName(next)}, nextCSV)).To(Succeed())
			g.Expect(nextCSV.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhasePending))
			g.Expect(nextCSV.Status.Reason).To(Equal(operatorsv1alpha1.CSVReasonOperatorConditionNotUpgradeable),
				"CSV %s: %s", nextCSV.Name, nextCSV.Status.Message)
		}
		Eventually(heldPending).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
		// OLM re-checks a pending CSV on every resync; it must stay held, with the release
		// in place still deployed and running.
		Consistently(heldPending).WithContext(ctx).WithTimeout(5 * time.Second).Should(Succeed())
		deployment := &appsv1.Deployment{}
		Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: operatorNamespace, Name: operatorDeployment}, deployment)).To(Succeed())
		Expect(deployment.Spec.Template.Spec.Containers[0].Env).To(ContainElement(
			corev1.EnvVar{Name: "OPERATOR_CONDITION_NAME", Value: csvName(head)}), "the Deployment is no longer that of %s", head)
		Expect(kubelet.running(operatorNamespace)).To(Equal(1), "the manager of %s does not run", head)

		By("removing the hold")
		patchHold(ctx, storyNamespace, "foo-02", "")
		expectInstalled(ctx, operatorNamespace, next)
		expectGone(ctx, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{
			Namespace: operatorNamespace, Name: csvName(head)}}, installTimeout)
		expectFriend(ctx, storyNamespace, "foo-01", "jack")

		// Checked before the uninstall: then the garbage collector may delete the RoleBinding
		// before the manager stops, and its last request, releasing the leader lease, is denied.
		expectNoForbidden(operatorNamespace)
	}, SpecTimeout(8*time.Minute))

	It("uninstalls: the operator and what OLM made for it go, the CRD and the Foos stay", func(ctx SpecContext) {
		uninstall(ctx, operatorNamespace, csvName("0.4.0"))
		Expect(k8sClient.Get(ctx, types.NamespacedName{Name: fooCRD}, &apiextensionsv1.CustomResourceDefinition{})).To(Succeed())
		expectSameFoos(ctx, storyNamespace, stories)
	}, SpecTimeout(5*time.Minute))

	// Each install mode installs the channel's head on its own and uninstalls it after: two
	// installations providing the same API to the same namespace conflict in OLM.
	for _, mode := range []struct {
		installMode string
		operator    string   // the namespace the operator is installed in
		targets     []string // the OperatorGroup's target namespaces; none: all
		unwatched   []string // namespaces whose Foos the operator must not touch
	}{
		{"OwnNamespace", "own", []string{"own"}, []string{"own-other"}},
		{"SingleNamespace", "single", []string{"single-b"}, []string{"single", "single-other"}},
		{"MultiNamespace", "multi", []string{"multi-b", "multi-c"}, []string{"multi", "multi-other"}},
		{"AllNamespaces", "all", nil, nil},
	} {
		It("installs in "+mode.installMode+" mode and reconciles the Foos of the watched namespaces only", func(ctx SpecContext) {
			catalogs.publish(ctx, committed)
			head := committed.entries[len(committed.entries)-1]["name"].(string)
			watched := mode.targets
			if watched == nil {
				watched = []string{mode.operator, mode.operator + "-b"}
			}
			for _, namespace := range append(append([]string{}, watched...), mode.unwatched...) {
				if namespace != mode.operator {
					createNamespace(ctx, namespace)
				}
			}
			createNamespace(ctx, mode.operator)
			for _, namespace := range append(append([]string{}, watched...), mode.unwatched...) {
				Expect(k8sClient.Create(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "foo"},
					Spec: tutorialv1.FooSpec{Name: "jack"}})).To(Succeed())
				createPod(ctx, namespace, "jack")
			}

			subscribe(ctx, mode.operator, mode.targets, "")
			csv := expectInstalled(ctx, mode.operator, versionOf(head))
			Expect(csv.Status.Reason).To(Equal(operatorsv1alpha1.CSVReasonInstallSuccessful))
			for _, namespace := range watched {
				expectFriend(ctx, namespace, "foo", "jack")
			}
			for _, namespace := range mode.unwatched {
				Consistently(func(g Gomega) {
					foo := &tutorialv1.Foo{}
					g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "foo"}, foo)).To(Succeed())
					g.Expect(foo.Status).To(BeZero(), "Foo %s/foo is outside the watched namespaces %v", namespace, watched)
				}).WithContext(ctx).WithTimeout(unwatchedQuietPeriod).Should(Succeed())
			}
			expectNoForbidden(mode.operator)

			uninstall(ctx, mode.operator, head)
		}, SpecTimeout(6*time.Minute))
	}
})

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
	Expect(now).To(HaveLen(len(before)))
	for name, foo := range before {
		Expect(now).To(HaveKey(name))
		Expect(now[name].UID).To(Equal(foo.UID), "Foo %s was replaced", name)
		Expect(now[name].Spec).To(Equal(foo.Spec), "the spec of Foo %s changed", name)
	}
}

func versionOf(csv string) string { return csv[len(packageName+".v"):] }

func createPod(ctx context.Context, namespace, name string) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10"}}},
	})).To(Succeed())
}

// deletePod deletes the pod at once: no kubelet runs pods here to finish a graceful deletion.
func deletePod(ctx context.Context, namespace, name string) {
	GinkgoHelper()
	Expect(k8sClient.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}},
		client.GracePeriodSeconds(0))).To(Succeed())
}

// expectHappy waits until the operator has set the Foo's status: happy or not, with the
// Happy condition saying the same. An unreconciled Foo has no condition, so this cannot
// pass on a status nobody wrote.
func expectHappy(ctx context.Context, namespace, name string, happy bool) {
	GinkgoHelper()
	want := metav1.ConditionFalse
	if happy {
		want = metav1.ConditionTrue
	}
	Eventually(func(g Gomega) {
		// A manager denied a request may never see the change; the denial is what to report.
		if denied := deniedRequestsIn(kubelet.runningLogs()); len(denied) > 0 {
			StopTrying(fmt.Sprintf("Foo %s/%s: a manager was denied requests, so its CSV's RBAC does not cover "+
				"what the operator does:\n%s", namespace, name, strings.Join(denied, "\n"))).Now()
		}
		foo := &tutorialv1.Foo{}
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, foo)).To(Succeed())
		condition := meta.FindStatusCondition(foo.Status.Conditions, tutorialv1.HappyCondition)
		g.Expect(condition).NotTo(BeNil(), "Foo %s/%s has no Happy condition: not reconciled", namespace, name)
		g.Expect(condition.Status).To(Equal(want), "Foo %s/%s: %s", namespace, name, condition.Message)
		g.Expect(foo.Status.Happy).To(Equal(happy))
	}).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(Succeed())
}

// expectFriend waits until the Foo is happy with the pod friend, named in status.friend.
func expectFriend(ctx context.Context, namespace, name, friend string) {
	GinkgoHelper()
	expectHappy(ctx, namespace, name, true)
	pod := &corev1.Pod{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: friend}, pod)).To(Succeed())
	Eventually(func(g Gomega) {
		foo := &tutorialv1.Foo{}
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, foo)).To(Succeed())
		g.Expect(foo.Status.Friend).To(Equal(&tutorialv1.FriendReference{Name: friend, UID: pod.UID}))
	}).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(Succeed())
}

// patchHold sets the hold-upgrades annotation of a Foo to reason, or removes it if reason
// is empty.
func patchHold(ctx context.Context, namespace, name, reason string) {
	GinkgoHelper()
	var value any
	if reason != "" {
		value = reason
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"annotations": map[string]any{tutorialv1.HoldUpgradesAnnotation: value}}})
	Expect(err).NotTo(HaveOccurred())
	Expect(k8sClient.Patch(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}},
		client.RawPatch(types.MergePatchType, patch))).To(Succeed())
}

// forbidden matches the way a denied request shows in the manager's log.
var forbidden = regexp.MustCompile(`(?i)forbidden`)

// expectNoForbidden checks that no manager run in namespace was ever denied a request: the
// CSV's RBAC must cover all that the operator does, in every install mode.
func expectNoForbidden(namespace string) {
	GinkgoHelper()
	logs := kubelet.logsOf(namespace)
	Expect(logs).NotTo(BeEmpty(), "no manager ran in %s", namespace)
	Expect(deniedRequestsIn(logs)).To(BeEmpty(), "the CSV's RBAC does not cover what the operator does")
}

// deniedRequestsIn returns the lines of the manager logs that tell of a denied request, each
// prefixed with its log's path.
func deniedRequestsIn(logs []string) []string {
	GinkgoHelper()
	var denied []string
	for _, log := range logs {
		file, err := os.Open(log)
		Expect(err).NotTo(HaveOccurred())
		scanner := bufio.NewScanner(file)
		scanner.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
		for scanner.Scan() {
			if forbidden.MatchString(scanner.Text()) {
				denied = append(denied, log+": "+scanner.Text())
			}
		}
		Expect(scanner.Err()).NotTo(HaveOccurred())
		_ = file.Close()
	}
	return denied
}

// auditLog is the apiserver's audit log, which records who wrote Foo statuses.
func auditLog() string { return filepath.Join(logDir, "kube-apiserver-audit.jsonl") }

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
	file, err := os.Open(auditLog())
	Expect(err).NotTo(HaveOccurred())
	defer file.Close()
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
