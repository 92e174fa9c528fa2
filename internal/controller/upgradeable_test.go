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
	"context"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	"github.com/operator-framework/operator-lib/conditions"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// operatorConditionKey is the OperatorCondition the suite's manager publishes to, as OLM
// would have created it for the operator.
var operatorConditionKey = types.NamespacedName{Namespace: "operators", Name: "foo-operator.v0.3.0"}

// createOperatorCondition creates the OperatorCondition OLM would create, and returns the
// Upgradeable condition in it. operator-lib finds the OperatorCondition through the pod's
// service account files, which a test process does not have; this reads and writes the
// same object the same way (get, set the condition in spec, update).
func createOperatorCondition() conditions.Condition {
	Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorConditionKey.Namespace}})).To(Succeed())
	Expect(k8sClient.Create(ctx, &operatorsv2.OperatorCondition{ObjectMeta: metav1.ObjectMeta{
		Namespace: operatorConditionKey.Namespace, Name: operatorConditionKey.Name,
	}})).To(Succeed())
	return &operatorConditionType{client: k8sClient, key: operatorConditionKey, conditionType: operatorsv2.Upgradeable}
}

type operatorConditionType struct {
	client        client.Client
	key           types.NamespacedName
	conditionType string
}

func (c *operatorConditionType) Get(ctx context.Context) (*metav1.Condition, error) {
	var operatorCondition operatorsv2.OperatorCondition
	if err := c.client.Get(ctx, c.key, &operatorCondition); err != nil {
		return nil, err
	}
	condition := meta.FindStatusCondition(operatorCondition.Spec.Conditions, c.conditionType)
	if condition == nil {
		return nil, fmt.Errorf("condition %s not found", c.conditionType)
	}
	return condition, nil
}

func (c *operatorConditionType) Set(ctx context.Context, status metav1.ConditionStatus, options ...conditions.Option) error {
	var operatorCondition operatorsv2.OperatorCondition
	if err := c.client.Get(ctx, c.key, &operatorCondition); err != nil {
		return err
	}
	condition := metav1.Condition{Type: c.conditionType, Status: status}
	for _, option := range options {
		option(&condition)
	}
	meta.SetStatusCondition(&operatorCondition.Spec.Conditions, condition)
	return c.client.Update(ctx, &operatorCondition)
}

var _ = Describe("Upgrade holds", func() {
	upgradeable := func(g Gomega) *metav1.Condition {
		var operatorCondition operatorsv2.OperatorCondition
		g.Expect(k8sClient.Get(ctx, operatorConditionKey, &operatorCondition)).To(Succeed())
		condition := meta.FindStatusCondition(operatorCondition.Spec.Conditions, operatorsv2.Upgradeable)
		g.Expect(condition).NotTo(BeNil(), "the Upgradeable condition is published")
		return condition
	}

	It("tells OLM the operator is not upgradeable while a Foo holds upgrades", func() {
		namespace := createNamespace()
		By("publishing Upgradeable=True while no Foo holds upgrades")
		Eventually(func(g Gomega) {
			g.Expect(upgradeable(g).Status).To(Equal(metav1.ConditionTrue))
			g.Expect(upgradeable(g).Reason).To(Equal(NoUpgradeHoldReason))
		}).Should(Succeed())

		By("annotating a Foo with a hold")
		foo := createFoo(namespace, "held", "jack")
		setHold(foo, "migrating data")
		Eventually(func(g Gomega) {
			condition := upgradeable(g)
			g.Expect(condition.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(condition.Reason).To(Equal(UpgradeHeldReason))
			g.Expect(condition.Message).To(ContainSubstring(namespace + "/held (migrating data)"))
		}).Should(Succeed())

		By("removing the hold")
		setHold(foo, "")
		Eventually(func(g Gomega) {
			g.Expect(upgradeable(g).Status).To(Equal(metav1.ConditionTrue))
		}).Should(Succeed())
	})
})

var _ = Describe("Upgrade holds without an OperatorCondition", func() {
	It("warns, on each Foo that asks for a hold, that nothing is held", func() {
		namespace := createNamespace()
		recorder := record.NewFakeRecorder(10)
		// Against the apiserver: it reads each Foo as it is there.
		reconciler := &UpgradeHoldUnavailableReconciler{Reader: k8sClient, Recorder: recorder}
		reconcileFoo := func(name string) {
			_, err := reconciler.Reconcile(ctx, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}})
			Expect(err).NotTo(HaveOccurred())
		}

		By("reconciling a Foo without a hold, and a Foo that is gone")
		createFoo(namespace, "free", "jack")
		reconcileFoo("free")
		reconcileFoo("gone")
		Expect(recorder.Events).To(BeEmpty(), "no Foo asks for a hold")

		By("reconciling a Foo that holds upgrades")
		held := createFoo(namespace, "held", "jack")
		setHold(held, "migrating data")
		reconcileFoo("held")
		Expect(recorder.Events).To(Receive(And(
			HavePrefix(corev1.EventTypeWarning+" "+UpgradeHoldUnavailableReason+" "),
			ContainSubstring(tutorialv1.HoldUpgradesAnnotation+" annotation holds no upgrade"))))

		By("reconciling it once its hold is removed")
		setHold(held, "")
		reconcileFoo("held")
		Expect(recorder.Events).To(BeEmpty(), "the hold is gone")
	})
})

// setHold sets the hold-upgrades annotation of foo to reason, or removes it if reason is empty.
func setHold(foo *tutorialv1.Foo, reason string) {
	key := tutorialv1.HoldUpgradesAnnotation
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, key, reason)
	if reason == "" {
		patch = fmt.Appendf(nil, `{"metadata":{"annotations":{%q:null}}}`, key)
	}
	ExpectWithOffset(1, k8sClient.Patch(ctx, foo, client.RawPatch(types.MergePatchType, patch))).To(Succeed())
}
