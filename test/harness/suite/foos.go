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

package suite

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// FooStatus is what ExpectFooStatus waits for.
type FooStatus struct {
	Happy bool
	// Reason, if set, is the reason the Happy condition must give.
	Reason string
	// Timeout bounds the wait; zero means the suite's default.
	Timeout time.Duration
	// Stop, if set, is asked at each look: a message it returns ends the wait at once,
	// failing with it (the operator denied a request, say).
	Stop func() string
}

// ExpectFooStatus waits until the operator has written the status of the Foo key as want
// says: status.happy, and a Happy condition that agrees with it (and gives want.Reason). An
// unreconciled Foo has no condition, so this cannot pass on a status nobody wrote; a failed
// wait says what the Foo showed last.
func ExpectFooStatus(ctx context.Context, c client.Client, key types.NamespacedName, want FooStatus) {
	GinkgoHelper()
	wantCondition := metav1.ConditionFalse
	if want.Happy {
		wantCondition = metav1.ConditionTrue
	}
	wait := Eventually(func(g Gomega) {
		if want.Stop != nil {
			if message := want.Stop(); message != "" {
				StopTrying(fmt.Sprintf("Foo %s: %s", key, message)).Now()
			}
		}
		foo := &tutorialv1.Foo{}
		g.Expect(c.Get(ctx, key, foo)).To(Succeed())
		condition := meta.FindStatusCondition(foo.Status.Conditions, tutorialv1.HappyCondition)
		g.Expect(condition).NotTo(BeNil(), "Foo %s has no Happy condition: not reconciled", key)
		g.Expect(foo.Status.Happy).To(Equal(want.Happy), "Foo %s: status.happy; its condition: %s %s: %s",
			key, condition.Status, condition.Reason, condition.Message)
		g.Expect(condition.Status).To(Equal(wantCondition), "Foo %s: the Happy condition: %s", key, condition.Message)
		if want.Reason != "" {
			g.Expect(condition.Reason).To(Equal(want.Reason), "Foo %s: the Happy condition's reason", key)
		}
	}).WithContext(ctx)
	if want.Timeout > 0 {
		wait = wait.WithTimeout(want.Timeout)
	}
	wait.Should(Succeed(), "the operator's status of Foo %s: happy=%v %s", key, want.Happy, want.Reason)
}

// CreateNamespaces creates namespaces (a GenerateName gets its name filled in) and waits
// until each has its default ServiceAccount, without which pods are refused. They are
// deleted when the spec (or the container, from a BeforeAll) ends: all at once, then, if
// goneTimeout is not zero, waited for. A namespace with pods goes no sooner than the
// namespace controller looks again, after the longest grace period of its pods; deleted one
// after the other, they would add up.
func CreateNamespaces(ctx context.Context, c client.Client, goneTimeout time.Duration, namespaces ...*corev1.Namespace) {
	GinkgoHelper()
	// Registered first, so that the namespaces created before a failed create go too.
	DeferCleanup(func(ctx context.Context) {
		for _, namespace := range namespaces {
			if namespace.Name != "" {
				Expect(client.IgnoreNotFound(c.Delete(ctx, namespace))).To(Succeed())
			}
		}
		if goneTimeout == 0 {
			return
		}
		for _, namespace := range namespaces {
			if namespace.Name == "" {
				continue
			}
			ExpectGone(ctx, c, namespace, goneTimeout)
		}
	})
	for _, namespace := range namespaces {
		Expect(c.Create(ctx, namespace)).To(Succeed())
	}
	for _, namespace := range namespaces {
		Eventually(func() error {
			return c.Get(ctx, client.ObjectKey{Namespace: namespace.Name, Name: "default"}, &corev1.ServiceAccount{})
		}).WithContext(ctx).Should(Succeed(), "the default ServiceAccount of namespace %s", namespace.Name)
	}
}

// ExpectGone waits, at most timeout, until obj no longer exists; a failed wait says it was
// still there.
func ExpectGone(ctx context.Context, c client.Client, obj client.Object, timeout time.Duration) {
	GinkgoHelper()
	Eventually(func() error {
		err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("%T %s still exists", obj, client.ObjectKeyFromObject(obj))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed(), "%T %s to be gone", obj, client.ObjectKeyFromObject(obj))
}
