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
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/hack/localcluster/process"
	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/testcluster"
)

// kubeletMaxBackOff is the longest the kubelet waits before it restarts a container that
// ended (its back-off doubles from 10s up to this): a container that the fault specs, run
// before in the same suite, made exit several times is restarted only after it.
const kubeletMaxBackOff = 5 * time.Minute

var _ = Describe("The operator's pod", Ordered, func() {
	AfterEach(operator.LogsOnFailure)

	It("runs the registry's image from config/default, admitted as restricted and Ready through its probe", func(ctx context.Context) {
		namespace := &corev1.Namespace{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: harness.OperatorNamespace}, namespace)).To(Succeed())
		Expect(namespace.Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce", "restricted"))

		pod, err := operator.Pod(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(pod.Spec.Containers[0].Image).To(Equal(operatorImage))
		Expect(pod.Spec.Containers[0].ReadinessProbe).NotTo(BeNil())
		Expect(pod.Status.ContainerStatuses).To(ConsistOf(HaveField("Ready", BeTrue())))
		// The image the node runs is one the registry holds, by digest. (The node names the
		// first reference it pulled the same image by: on a shared cluster, maybe another
		// repository's of this registry.)
		imageID := pod.Status.ContainerStatuses[0].ImageID
		Expect(imageID).To(HavePrefix(cluster.ImageRegistry().Host+"/"), "the container's image ID")
		_, err = cluster.ImageRegistry().Digest(ctx, imageID)
		Expect(err).NotTo(HaveOccurred(), "the registry holds the image the node runs")

		By("checking that the namespace really enforces the level: a pod without the restricted settings is refused")
		unrestricted := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: harness.OperatorNamespace, Name: "unrestricted"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: cluster.Image("pause")}}},
		}
		err = k8sClient.Create(ctx, unrestricted)
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "creating a pod that is not restricted gave %v", err)
		Expect(err.Error()).To(ContainSubstring(`violates PodSecurity "restricted:latest"`))
	})

	It("is restarted in the same pod when its process is killed", Label(string(testcluster.ContainerKill)), func(ctx context.Context) {
		killer, err := testcluster.As[testcluster.ContainerKiller](cluster, testcluster.ContainerKill)
		Expect(err).NotTo(HaveOccurred())
		pod, err := operator.Pod(ctx)
		Expect(err).NotTo(HaveOccurred())
		restarts := pod.Status.ContainerStatuses[0].RestartCount

		Expect(killer.SignalContainer(ctx, pod.Status.ContainerStatuses[0].ContainerID, "SIGKILL")).To(Succeed())

		var last corev1.Pod
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), &last)).To(Succeed())
			status := last.Status.ContainerStatuses[0]
			g.Expect(status.RestartCount).To(Equal(restarts + 1))
			g.Expect(status.LastTerminationState.Terminated).NotTo(BeNil())
			g.Expect(status.LastTerminationState.Terminated.ExitCode).To(BeEquivalentTo(137), "killed by SIGKILL")
			g.Expect(status.Ready).To(BeTrue())
		}).WithContext(ctx).WithTimeout(kubeletMaxBackOff+time.Minute).Should(Succeed(),
			func() string { return "the pod restarted and Ready; it is " + resources.DescribePod(&last) })
		Expect(last.UID).To(Equal(pod.UID), "the same pod, not a new one")
	})

	It("hands the leader Lease to the pod that replaces a deleted one", func(ctx context.Context) {
		pod, err := operator.Pod(ctx)
		Expect(err).NotTo(HaveOccurred())
		// controller-runtime names a candidate after its host name, a pod's name, and a UUID.
		Eventually(operator.LeaseHolder).WithContext(ctx).Should(HavePrefix(pod.Name+"_"), "the lease held by %s", pod.Name)

		Expect(k8sClient.Delete(ctx, pod)).To(Succeed())

		var replacement *corev1.Pod
		Eventually(func(g Gomega) {
			replacement, err = operator.Pod(ctx)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(replacement.UID).NotTo(Equal(pod.UID))
			g.Expect(replacement.Status.ContainerStatuses).To(ConsistOf(HaveField("Ready", BeTrue())))
		}).WithContext(ctx).Should(Succeed(), "a new Ready pod of the operator")
		Eventually(operator.LeaseHolder).WithContext(ctx).Should(HavePrefix(replacement.Name+"_"), "the lease held by the new pod %s", replacement.Name)

		By("reconciling under the new leader")
		namespace := createNamespace(ctx, "leader-", nil)
		foo := harness.NewFoo(namespace, "foo", "jack")
		Expect(k8sClient.Create(ctx, foo)).To(Succeed())
		runFriend(ctx, namespace, "jack")
		expectHappy(ctx, types.NamespacedName{Namespace: namespace, Name: "foo"}, true, "FriendFound")
	})
})

var _ = Describe("The local cluster", func() {
	It("listens on no address of the machine but loopback: pod and node addresses exist only in its own namespace", func() {
		// Everything the suite started descends from it; the node's processes live in the
		// node's network namespace, whose sockets are not in the machine's table.
		Expect(process.ExposedListeners(os.Getpid())).To(BeEmpty(),
			"sockets accepting packets on the machine's addresses other than loopback")
	})
})
