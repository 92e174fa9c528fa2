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

package reliability

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

var _ = Describe("A conflict storm", func() {
	It("converges to the right statuses while writers fight over the same Foos, with no reconcile errors", func(ctx context.Context) {
		const (
			writers   = 8
			contested = 50 // the Foos every writer picks from, so that their writes collide
			stormTime = 10 * time.Second
		)
		namespace, friends := populate(ctx)
		manager := environment.StartOperator(ctx, "conflicts")
		Eventually(isLeader(manager)).Should(BeTrue())
		expectAllStatusesRight(ctx, namespace)

		By("editing spec.name and forging status from 8 writers at once for 10s")
		stormEnd := time.Now().Add(stormTime)
		var writes, conflicts atomic.Int64
		var storm sync.WaitGroup
		for range writers {
			storm.Go(func() {
				defer GinkgoRecover()
				for time.Now().Before(stormEnd) {
					key := client.ObjectKey{Namespace: namespace, Name: fmt.Sprintf("foo-%04d", rand.IntN(contested))}
					var err error
					if rand.IntN(2) == 0 {
						err = editFriend(ctx, key, friends[rand.IntN(len(friends))])
					} else {
						err = forgeStatus(ctx, key)
					}
					switch {
					case apierrors.IsConflict(err):
						conflicts.Add(1)
					default:
						Expect(err).NotTo(HaveOccurred())
						writes.Add(1)
					}
				}
			})
		}
		storm.Wait()
		report("Writes by the storm's writers", writes.Load())
		report("Writes of the storm's writers refused by conflicts", conflicts.Load())

		report("Convergence after the storm", expectAllStatusesRight(ctx, namespace).Round(time.Millisecond).String())
		Expect(countLines(manager.Logs(), "Reconciler error")).To(BeZero(), "no reconcile may fail because of a conflict")
	})
})

// editFriend points a Foo at another pod, with an update that fails on a conflict.
func editFriend(ctx context.Context, key client.ObjectKey, friend string) error {
	var foo tutorialv1.Foo
	if err := environment.ControlPlane.Client.Get(ctx, key, &foo); err != nil {
		return err
	}
	foo.Spec.Name = friend
	return environment.ControlPlane.Client.Update(ctx, &foo)
}

// forgeStatus overwrites a Foo's status with the opposite of what it shows and a condition
// the operator does not own, as a buggy or hostile client would.
func forgeStatus(ctx context.Context, key client.ObjectKey) error {
	var foo tutorialv1.Foo
	if err := environment.ControlPlane.Client.Get(ctx, key, &foo); err != nil {
		return err
	}
	foo.Status.Happy = !foo.Status.Happy
	foo.Status.ObservedGeneration = 0
	foo.Status.Conditions = []metav1.Condition{{
		Type: "Forged", Status: metav1.ConditionTrue, Reason: "Tampered", Message: "not from the operator",
		LastTransitionTime: metav1.Now(),
	}}
	if rand.IntN(2) == 0 {
		return environment.ControlPlane.Client.Status().Update(ctx, &foo)
	}
	// A merge patch without a resourceVersion never conflicts: it simply overwrites.
	patch := fmt.Sprintf(`{"status":{"happy":%t,"conditions":null}}`, foo.Status.Happy)
	return environment.ControlPlane.Client.Status().Patch(ctx, &foo, client.RawPatch(types.MergePatchType, []byte(patch)))
}
