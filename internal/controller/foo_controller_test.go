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

package controller

import (
	"errors"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

var _ = Describe("Foo controller", func() {
	var namespace string

	BeforeEach(func() {
		namespace = createNamespace()
	})

	It("plays the product story: Foos are happy exactly while their friend pod exists", func() {
		By("creating foo-01 looking for jack and foo-02 looking for joe")
		foo01 := createFoo(namespace, "foo-01", "jack")
		foo02 := createFoo(namespace, "foo-02", "joe")
		expectHappy(foo01, false, tutorialv1.FriendNotFoundReason)
		expectHappy(foo02, false, tutorialv1.FriendNotFoundReason)

		By("creating pod jack: foo-01 becomes happy, foo-02 does not")
		jack := createJack(namespace)
		expectHappy(foo01, true, tutorialv1.FriendFoundReason)
		expectHappy(foo02, false, tutorialv1.FriendNotFoundReason)

		By("pointing foo-02 at jack: foo-02 becomes happy")
		setFriend(foo02, "jack")
		expectHappy(foo02, true, tutorialv1.FriendFoundReason)

		By("deleting jack: both become unhappy")
		Expect(k8sClient.Delete(ctx, jack)).To(Succeed())
		expectHappy(foo01, false, tutorialv1.FriendNotFoundReason)
		expectHappy(foo02, false, tutorialv1.FriendNotFoundReason)
	})

	It("names the pod it counts as friend, and notices when it is replaced", func() {
		foo := createFoo(namespace, "foo", "jack")
		jack := createJack(namespace)
		expectFriend(foo, jack)

		By("deleting jack and creating another pod named jack")
		Expect(k8sClient.Delete(ctx, jack)).To(Succeed())
		expectHappy(foo, false, tutorialv1.FriendNotFoundReason)
		Expect(getFoo(Default, foo).Status.Friend).To(BeNil(), "an unhappy Foo names no friend")
		newJack := createJack(namespace)
		Expect(newJack.UID).NotTo(Equal(jack.UID))
		expectFriend(foo, newJack)
	})

	It("records the spec generation it acted on", func() {
		foo := createFoo(namespace, "foo", "jack")
		expectHappy(foo, false, tutorialv1.FriendNotFoundReason)
		setFriend(foo, "joe")

		Eventually(func(g Gomega) {
			current := getFoo(g, foo)
			g.Expect(current.Generation).To(BeNumerically(">", 1))
			g.Expect(current.Status.ObservedGeneration).To(Equal(current.Generation))
			happy := meta.FindStatusCondition(current.Status.Conditions, tutorialv1.HappyCondition)
			g.Expect(happy).NotTo(BeNil())
			g.Expect(happy.ObservedGeneration).To(Equal(current.Generation))
			g.Expect(happy.Message).To(ContainSubstring(`"joe"`))
		}).Should(Succeed())
	})

	It("does not count a pod of the same name in another namespace", func() {
		foo := createFoo(namespace, "foo", "jack")
		expectHappy(foo, false, tutorialv1.FriendNotFoundReason)

		By("creating jack in another namespace, where a witness Foo turns happy: the operator has seen him")
		other := createNamespace()
		witness := createFoo(other, "witness", "jack")
		createJack(other)
		expectHappy(witness, true, tutorialv1.FriendFoundReason)
		Consistently(func(g Gomega) bool { return getFoo(g, foo).Status.Happy }).WithTimeout(2*time.Second).
			Should(BeFalse(), "status.happy of %s, whose namespace has no jack", foo.Name)

		createJack(namespace)
		expectHappy(foo, true, tutorialv1.FriendFoundReason)
	})

	It("does not count a pod that is being deleted", func() {
		foo := createFoo(namespace, "foo", "jack")
		jack := createJack(namespace)
		expectHappy(foo, true, tutorialv1.FriendFoundReason)

		By("deleting jack while a finalizer holds it in place")
		patch := client.MergeFrom(jack.DeepCopy())
		jack.Finalizers = []string{"tutorial.my.domain/test-hold"}
		Expect(k8sClient.Patch(ctx, jack, patch)).To(Succeed())
		Expect(k8sClient.Delete(ctx, jack)).To(Succeed())
		expectHappy(foo, false, tutorialv1.FriendTerminatingReason)

		By("releasing the finalizer: the pod goes and the Foo stays unhappy")
		patch = client.MergeFrom(jack.DeepCopy())
		jack.Finalizers = nil
		Expect(k8sClient.Patch(ctx, jack, patch)).To(Succeed())
		expectHappy(foo, false, tutorialv1.FriendNotFoundReason)
	})

	It("repairs a status that someone else wrote", func() {
		foo := createFoo(namespace, "foo", "jack")
		expectHappy(foo, false, tutorialv1.FriendNotFoundReason)

		current := &tutorialv1.Foo{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(foo), current)).To(Succeed())
		current.Status.Happy = true
		current.Status.Conditions = []metav1.Condition{{
			Type: "Forged", Status: metav1.ConditionTrue, Reason: "Tampered", Message: "not from the operator",
			LastTransitionTime: metav1.Now(),
		}}
		Expect(k8sClient.Status().Update(ctx, current)).To(Succeed())

		expectHappy(foo, false, tutorialv1.FriendNotFoundReason)
		Eventually(func(g Gomega) {
			g.Expect(getFoo(g, foo).Status.Conditions).To(HaveLen(1), "only the operator's Happy condition remains")
		}).Should(Succeed())
	})

	It("writes no status when a reconcile finds nothing changed", func() {
		foo := createFoo(namespace, "foo", "jack")
		createJack(namespace)
		expectHappy(foo, true, tutorialv1.FriendFoundReason)

		By("changing only the Foo's labels, which makes the controller reconcile it")
		reconcilesBefore := logged.reconciled(foo)
		current := &tutorialv1.Foo{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(foo), current)).To(Succeed())
		patch := client.MergeFrom(current.DeepCopy())
		current.Labels = map[string]string{"touched": "yes"}
		Expect(k8sClient.Patch(ctx, current, patch)).To(Succeed())
		Eventually(func() int { return logged.reconciled(foo) }).Should(BeNumerically(">", reconcilesBefore),
			"reconciles of this Foo finished, from the manager's log")

		By("seeing the resourceVersion stay at the label change")
		Consistently(func(g Gomega) string {
			return getFoo(g, foo).ResourceVersion
		}, "2s", "200ms").Should(Equal(current.ResourceVersion))
	})

	It("emits an Event on each happy transition", func() {
		foo := createFoo(namespace, "foo", "jack")
		jack := createJack(namespace)
		expectHappy(foo, true, tutorialv1.FriendFoundReason)
		Expect(k8sClient.Delete(ctx, jack)).To(Succeed())
		expectHappy(foo, false, tutorialv1.FriendNotFoundReason)

		Eventually(func(g Gomega) []string {
			var events corev1.EventList
			g.Expect(k8sClient.List(ctx, &events, client.InNamespace(namespace))).To(Succeed())
			var reasons []string
			for _, event := range events.Items {
				if event.InvolvedObject.Kind == "Foo" && event.InvolvedObject.Name == foo.Name {
					g.Expect(event.Type).To(Equal(corev1.EventTypeNormal))
					g.Expect(event.Source.Component).To(Equal(ControllerName))
					reasons = append(reasons, event.Reason)
				}
			}
			return reasons
		}).Should(ConsistOf(
			Equal(tutorialv1.FriendFoundReason),
			// The apiserver may show the pod terminating before it is gone: either way the
			// Foo turned unhappy once, so there is one Event for it.
			BeElementOf(tutorialv1.FriendTerminatingReason, tutorialv1.FriendNotFoundReason),
		))
	})

	It("caches pods as metadata only", func() {
		jack := createJack(namespace)
		foo := createFoo(namespace, "foo", "jack")
		expectHappy(foo, true, tutorialv1.FriendFoundReason)

		var cached metav1.PartialObjectMetadata
		cached.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
		Expect(managerClient.Get(ctx, client.ObjectKeyFromObject(jack), &cached)).To(Succeed())
		Expect(cached.Labels).To(BeEmpty(), "only what identifies a pod is kept")

		err := managerClient.Get(ctx, client.ObjectKeyFromObject(jack), &corev1.Pod{})
		var notCached *cache.ErrResourceNotCached
		Expect(errors.As(err, &notCached)).To(BeTrue(), "no full Pod informer may exist, got %v", err)
	})
})

func createNamespace() string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "foo-test-"}}
	ExpectWithOffset(1, k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

func createFoo(namespace, name, friend string) *tutorialv1.Foo {
	foo := &tutorialv1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       tutorialv1.FooSpec{Name: friend},
	}
	ExpectWithOffset(1, k8sClient.Create(ctx, foo)).To(Succeed())
	return foo
}

// createJack creates the pod named jack, the friend of the story, in namespace.
func createJack(namespace string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "jack", Labels: map[string]string{"app": "jack"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
	}
	ExpectWithOffset(1, k8sClient.Create(ctx, pod)).To(Succeed())
	return pod
}

func setFriend(foo *tutorialv1.Foo, friend string) {
	patch := []byte(fmt.Sprintf(`{"spec":{"name":%q}}`, friend))
	ExpectWithOffset(1, k8sClient.Patch(ctx, foo, client.RawPatch(types.MergePatchType, patch))).To(Succeed())
}

func getFoo(g Gomega, foo *tutorialv1.Foo) *tutorialv1.Foo {
	current := &tutorialv1.Foo{}
	g.ExpectWithOffset(1, k8sClient.Get(ctx, client.ObjectKeyFromObject(foo), current)).To(Succeed())
	return current
}

// expectHappy waits until the Foo's status.happy and Happy condition say happy, for reason.
func expectHappy(foo *tutorialv1.Foo, happy bool, reason string) {
	wantStatus := metav1.ConditionFalse
	if happy {
		wantStatus = metav1.ConditionTrue
	}
	EventuallyWithOffset(1, func(g Gomega) {
		current := getFoo(g, foo)
		g.Expect(current.Status.Happy).To(Equal(happy), "status.happy of %s", foo.Name)
		condition := meta.FindStatusCondition(current.Status.Conditions, tutorialv1.HappyCondition)
		g.Expect(condition).NotTo(BeNil(), "Happy condition of %s", foo.Name)
		g.Expect(condition.Status).To(Equal(wantStatus), "Happy condition of %s", foo.Name)
		g.Expect(condition.Reason).To(Equal(reason), "Happy condition of %s", foo.Name)
	}).Should(Succeed())
}

// expectFriend waits until the Foo is happy with pod as its friend.
func expectFriend(foo *tutorialv1.Foo, pod *corev1.Pod) {
	EventuallyWithOffset(1, func(g Gomega) {
		current := getFoo(g, foo)
		g.Expect(current.Status.Happy).To(BeTrue())
		g.Expect(current.Status.Friend).To(Equal(&tutorialv1.FriendReference{Name: pod.Name, UID: pod.UID}))
	}).Should(Succeed())
}
