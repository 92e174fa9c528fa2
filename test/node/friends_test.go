//go:build node

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

package node

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

var _ = Describe("Foos on a node", func() {
	var namespace string

	BeforeEach(func(ctx context.Context) {
		namespace = createNamespace(ctx, "friends-", nil)
	})
	AfterEach(operator.LogsOnFailure)

	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: namespace, Name: name} }

	It("follow friend pods that really run: the seed story", func(ctx context.Context) {
		Expect(k8sClient.Create(ctx, harness.NewFoo(namespace, "foo-01", "jack"))).To(Succeed())
		Expect(k8sClient.Create(ctx, harness.NewFoo(namespace, "foo-02", "joe"))).To(Succeed())
		expectHappy(ctx, key("foo-01"), false, tutorialv1.FriendNotFoundReason)

		By("running pod jack")
		jack := runFriend(ctx, namespace, "jack")
		expectHappy(ctx, key("foo-01"), true, tutorialv1.FriendFoundReason)
		expectHappy(ctx, key("foo-02"), false, tutorialv1.FriendNotFoundReason)

		By("pointing foo-02 at jack")
		foo02 := &tutorialv1.Foo{}
		Expect(k8sClient.Get(ctx, key("foo-02"), foo02)).To(Succeed())
		foo02.Spec.Name = "jack"
		Expect(k8sClient.Update(ctx, foo02)).To(Succeed())
		expectHappy(ctx, key("foo-02"), true, tutorialv1.FriendFoundReason)

		By("deleting jack, whose container ends on SIGTERM")
		Expect(k8sClient.Delete(ctx, jack)).To(Succeed())
		expectGone(ctx, jack)
		expectHappy(ctx, key("foo-01"), false, tutorialv1.FriendNotFoundReason)
		expectHappy(ctx, key("foo-02"), false, tutorialv1.FriendNotFoundReason)
	})

	It("turn unhappy as soon as their friend starts terminating, while its container still runs out its grace period", func(ctx context.Context) {
		Expect(k8sClient.Create(ctx, harness.NewFoo(namespace, "foo", "slow"))).To(Succeed())
		// busybox's sh ignores SIGTERM here, so the kubelet lets the container run for the
		// whole grace period before it kills it.
		slow := harness.RestrictedPod(namespace, "slow", cluster.Image("busybox"), "sh", "-c", `trap "" TERM; while true; do sleep 1; done`)
		slow.Spec.TerminationGracePeriodSeconds = ptr.To[int64](8)
		createRunning(ctx, slow)
		expectHappy(ctx, key("foo"), true, tutorialv1.FriendFoundReason)

		deleted := time.Now()
		Expect(k8sClient.Delete(ctx, slow)).To(Succeed())
		expectHappy(ctx, key("foo"), false, tutorialv1.FriendTerminatingReason)
		turned := time.Since(deleted)
		current := &corev1.Pod{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(slow), current)).To(Succeed(), "the pod is still there")
		Expect(current.Status.ContainerStatuses[0].State.Running).NotTo(BeNil(), "its container still runs: %s", resources.DescribePod(current))
		AddReportEntry("Foo unhappy after its friend's deletion began", turned.Round(time.Millisecond).String())

		expectGone(ctx, slow)
		Expect(time.Since(deleted)).To(BeNumerically(">=", 7*time.Second), "the kubelet granted the grace period")
		expectHappy(ctx, key("foo"), false, tutorialv1.FriendNotFoundReason)
	})

	It("stay unhappy while a finalizer holds a friend whose containers have stopped", func(ctx context.Context) {
		Expect(k8sClient.Create(ctx, harness.NewFoo(namespace, "foo", "held"))).To(Succeed())
		held := harness.RestrictedPod(namespace, "held", cluster.Image("pause"))
		held.Finalizers = []string{"example.com/hold"}
		createRunning(ctx, held)
		expectHappy(ctx, key("foo"), true, tutorialv1.FriendFoundReason)

		Expect(k8sClient.Delete(ctx, held)).To(Succeed())
		expectHappy(ctx, key("foo"), false, tutorialv1.FriendTerminatingReason)
		current := &corev1.Pod{}
		Eventually(func() *corev1.ContainerStateTerminated {
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(held), current)).To(Succeed())
			return current.Status.ContainerStatuses[0].State.Terminated
		}).WithContext(ctx).ShouldNot(BeNil(), "the held pod's container to stop")
		Consistently(func() string { return happyReason(ctx, key("foo")) }).WithContext(ctx).
			WithTimeout(2 * time.Second).Should(Equal(tutorialv1.FriendTerminatingReason))

		By("removing the finalizer")
		Expect(k8sClient.Patch(ctx, current, client.RawPatch(types.JSONPatchType,
			[]byte(`[{"op":"remove","path":"/metadata/finalizers"}]`)))).To(Succeed())
		expectGone(ctx, held)
		expectHappy(ctx, key("foo"), false, tutorialv1.FriendNotFoundReason)
	})

	It("see a pod whose image is missing from the registry fail as on any cluster, naming the image", func(ctx context.Context) {
		missing := cluster.ImageRegistry().Host + "/foo-operator:does-not-exist"
		pod := harness.RestrictedPod(namespace, "missing", missing)
		Expect(k8sClient.Create(ctx, pod)).To(Succeed())
		var last corev1.Pod
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), &last)).To(Succeed())
			g.Expect(last.Status.ContainerStatuses).To(HaveLen(1))
			waiting := last.Status.ContainerStatuses[0].State.Waiting
			g.Expect(waiting).NotTo(BeNil())
			g.Expect(waiting.Reason).To(BeElementOf("ErrImagePull", "ImagePullBackOff"))
			g.Expect(waiting.Message).To(ContainSubstring(missing))
		}).WithContext(ctx).Should(Succeed(), func() string { return "ErrImagePull naming the image; the pod is " + resources.DescribePod(&last) })
		Expect(resources.DescribePod(&last)).To(ContainSubstring("not found"))
	})
})

// runFriend runs a pod named name (pause, from the registry) and waits for it to run.
func runFriend(ctx context.Context, namespace, name string) *corev1.Pod {
	GinkgoHelper()
	pod := harness.RestrictedPod(namespace, name, cluster.Image("pause"))
	createRunning(ctx, pod)
	return pod
}

// createRunning creates pod and waits until its container runs.
func createRunning(ctx context.Context, pod *corev1.Pod) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, pod)).To(Succeed())
	var last corev1.Pod
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), &last)).To(Succeed())
		g.Expect(last.Status.Phase).To(Equal(corev1.PodRunning))
		g.Expect(last.Status.ContainerStatuses).To(ConsistOf(HaveField("State.Running", Not(BeNil()))))
	}).WithContext(ctx).Should(Succeed(), func() string { return "pod " + pod.Name + " running; it is " + resources.DescribePod(&last) })
}

// expectGone waits until pod no longer exists.
func expectGone(ctx context.Context, pod *corev1.Pod) {
	GinkgoHelper()
	Eventually(func() error {
		return k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), &corev1.Pod{})
	}).WithContext(ctx).Should(Satisfy(func(err error) bool { return client.IgnoreNotFound(err) == nil && err != nil }),
		"pod %s to be gone", pod.Name)
}

// expectHappy waits until the operator has written the Foo's status, happy or not with the
// given reason (suite.ExpectFooStatus).
func expectHappy(ctx context.Context, key types.NamespacedName, happy bool, reason string) {
	GinkgoHelper()
	suite.ExpectFooStatus(ctx, k8sClient, key, suite.FooStatus{Happy: happy, Reason: reason, Timeout: 30 * time.Second})
}

// happyReason is the reason of the Foo's Happy condition, or what kept it from being read.
func happyReason(ctx context.Context, key types.NamespacedName) string {
	foo := &tutorialv1.Foo{}
	if err := k8sClient.Get(ctx, key, foo); err != nil {
		return err.Error()
	}
	if condition := meta.FindStatusCondition(foo.Status.Conditions, tutorialv1.HappyCondition); condition != nil {
		return condition.Reason
	}
	return "no Happy condition"
}
