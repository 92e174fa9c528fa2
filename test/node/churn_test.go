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
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	"github.com/example/foo-operator/test/harness/suite"
)

// faultSizes are the numbers of Foos and of the friend pod names they share:
// NODE_FAULTS_FOOS and NODE_FAULTS_FRIENDS, the full world's unless set.
func faultSizes() (foos, friends int) {
	return suite.WorldSizes("NODE_FAULTS_FOOS", "NODE_FAULTS_FRIENDS")
}

// newFriendWorld makes the world the fault specs break things under, in a namespace of its
// own: faultSizes' Foos, and their friends, pods of the node.
func newFriendWorld(ctx context.Context) *suite.FriendWorld {
	GinkgoHelper()
	foos, friends := faultSizes()
	return suite.NewFriendWorld(ctx, suite.FriendWorldOptions{
		Client: k8sClient, Namespace: createNamespace(ctx, "faults-", nil), Foos: foos, Friends: friends,
		PauseImage: cluster.Image("pause"), BusyboxImage: cluster.Image("busybox"), OperatorRestarts: operatorRestarts,
	})
}

// measured collects every fault spec's figures for the report at the end of the suite.
var measured []suite.FaultFigures

// underChurn injects a fault in world under churn (FriendWorld.UnderChurn) and keeps its
// figures for the suite's table.
func underChurn(ctx context.Context, world *suite.FriendWorld, fault, injected string,
	inject func(ctx context.Context, figures *suite.FaultFigures)) suite.FaultFigures {
	GinkgoHelper()
	figures := world.UnderChurn(ctx, fault, injected, inject)
	measured = append(measured, figures)
	return figures
}

// operatorRestarts is the sum of the restart counts of the operator's containers.
func operatorRestarts(ctx context.Context) int32 {
	GinkgoHelper()
	pods, err := operatorPods(ctx)
	Expect(err).NotTo(HaveOccurred())
	var restarts int32
	for _, pod := range pods {
		for _, status := range pod.Status.ContainerStatuses {
			restarts += status.RestartCount
		}
	}
	return restarts
}

// leaderPod is the operator's pod that holds the leader Lease, and the holder's identity.
func leaderPod(ctx context.Context) (*corev1.Pod, string) {
	GinkgoHelper()
	var holder string
	var leader *corev1.Pod
	Eventually(func(g Gomega) {
		var err error
		holder, err = leaseHolder(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		pods, err := operatorPods(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		leader = nil
		for i := range pods {
			if strings.HasPrefix(holder, pods[i].Name+"_") {
				leader = &pods[i]
			}
		}
		g.Expect(leader).NotTo(BeNil(), "no pod of the operator holds the Lease, held by %q", holder)
	}).WithContext(ctx).Should(Succeed(), "the operator's pod that holds the leader Lease")
	return leader, holder
}

// awaitTakeover waits until someone other than holder holds the leader Lease, and returns
// how long that took from since.
func awaitTakeover(ctx context.Context, holder string, since time.Time) time.Duration {
	GinkgoHelper()
	var last string
	Eventually(func() (string, error) {
		var err error
		last, err = leaseHolder(ctx)
		return last, err
	}).WithContext(ctx).WithPolling(100*time.Millisecond).ShouldNot(Or(BeEmpty(), Equal(holder)),
		func() string {
			return fmt.Sprintf("a new holder of the leader Lease, held by %q; it is held by %q", holder, last)
		})
	return time.Since(since)
}
