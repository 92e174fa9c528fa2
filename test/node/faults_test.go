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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
	"github.com/example/foo-operator/test/localcluster"
)

// The faults users' nodes meet, each under churn, on the operator as `make deploy` installs
// it with two replicas. `make test-node-faults` runs them (label "faults"); `make test-node`
// leaves them out. After each fault every Foo must be right within convergenceBound.
// leaderRenewDeadline is how long the manager's leader keeps trying to renew its Lease
// before it ends (the default of --leader-elect-renew-deadline, which config/manager keeps).
const leaderRenewDeadline = 10 * time.Second

var _ = Describe("The operator on a node, under churn of its Foos' friends", Label("faults"), Ordered, func() {
	var world *suite.FriendWorld

	BeforeAll(func(ctx context.Context) {
		By("running the operator with two replicas")
		scaleOperator(ctx, 2)
		DeferCleanup(scaleOperator, int32(1))
		foos, friends := faultSizes()
		By(fmt.Sprintf("creating %d Foos looking for %d friend pods, half of them running", foos, friends))
		world = newFriendWorld(ctx)
	})
	AfterEach(operatorLogsOnFailure)
	AfterAll(saveOperatorLogs)

	It("hands the Lease over when the leader's container is killed, and its Foos stay right", func(ctx context.Context) {
		underChurn(ctx, world, "Leader killed", "the leader's container SIGKILLed through containerd",
			func(ctx context.Context, figures *suite.FaultFigures) {
				leader, holder := leaderPod(ctx)
				killed := time.Now()
				Expect(cluster.SignalContainer(ctx, leader.Status.ContainerStatuses[0].ContainerID, "SIGKILL")).To(Succeed())
				figures.Takeover = awaitTakeover(ctx, holder, killed)
			})
		expectOperatorReady(ctx)
	})

	It("keeps running through a kubelet restart", func(ctx context.Context) {
		before := operatorContainers(ctx)
		underChurn(ctx, world, "kubelet restarted", "the node's kubelet stopped with SIGTERM and started again",
			func(ctx context.Context, _ *suite.FaultFigures) {
				Expect(cluster.RestartKubelet(ctx)).To(Succeed())
			})
		Expect(operatorContainers(ctx)).To(Equal(before), "the operator's containers, which the kubelet's restart must not touch")
	})

	It("keeps running through a containerd restart", func(ctx context.Context) {
		before := operatorContainers(ctx)
		underChurn(ctx, world, "containerd restarted", "the node's containerd stopped with SIGTERM and started again",
			func(ctx context.Context, _ *suite.FaultFigures) {
				Expect(cluster.RestartContainerd(ctx)).To(Succeed())
			})
		Expect(operatorContainers(ctx)).To(Equal(before), "the operator's containers, which run on under their shims")
	})

	It("recovers from a network partition between the leader's pod and the apiserver", func(ctx context.Context) {
		const partition = 20 * time.Second
		injected := fmt.Sprintf("the leader pod's packets to the apiserver dropped for %s (nftables, in the node's network)", partition)
		underChurn(ctx, world, "Leader partitioned", injected,
			func(ctx context.Context, figures *suite.FaultFigures) {
				leader, holder := leaderPod(ctx)
				cut := time.Now()
				restore, err := cluster.CutFromAPIServer(ctx, leader.Status.PodIP)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(restore)
				figures.Takeover = awaitTakeover(ctx, holder, cut)
				time.Sleep(max(0, partition-time.Since(cut)))
				Expect(restore(ctx)).To(Succeed())
			})
		expectOperatorReady(ctx)
	})

	It("relists after its watches expire, without a restart unless the apiserver stays down past the renew deadline", func(ctx context.Context) {
		var restartsBefore int32
		var down time.Duration
		// A witness of what the managers' watches meet: the resourceVersion of the pods just
		// before the fault, no older than any the managers watch from.
		var pods corev1.PodList
		underChurn(ctx, world, "Watches expired",
			"kube-apiserver SIGKILLed, etcd compacted, kube-apiserver started again: every watch resumes from a compacted revision",
			func(ctx context.Context, _ *suite.FaultFigures) {
				Expect(k8sClient.List(ctx, &pods, client.InNamespace(world.Namespace))).To(Succeed())
				// Counted at the kill, not when the spec starts: a replica the previous fault
				// made exit can come back under the kubelet's back-off after that spec ended
				// (seen: one came back 10s before this kill), and that restart is not this fault's.
				restartsBefore = operatorRestarts(ctx)
				killed := time.Now()
				cluster.KillAPIServer()
				revision, err := cluster.CompactEtcd(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(cluster.StartAPIServer(ctx)).To(Succeed())
				down = time.Since(killed)
				AddReportEntry("Watches expired: apiserver down, etcd compacted at revision", fmt.Sprintf("%s, %d", down.Round(100*time.Millisecond), revision))
			})
		// The fault is meant to be shorter than the leader's renew deadline (10s, the manager's
		// default), so that no process has a reason to end. On a loaded machine kube-apiserver
		// can take longer to be ready again (measured: down 6.3s to 16.5s); a leader that could
		// not renew for that long ends by design, and its one restart is then allowed: the
		// standby, which holds no Lease, still has to relist in the same process.
		allowedRestarts := restartsBefore
		if down >= leaderRenewDeadline {
			allowedRestarts++
			AddReportEntry("Watches expired: the apiserver was down longer than the leader's renew deadline", down.String())
		}
		Expect(operatorRestarts(ctx)).To(BeNumerically("<=", allowedRestarts),
			"restarts of the operator's containers, with the apiserver down %s", down.Round(100*time.Millisecond))
		// The fault really expired the watches: one resumed from a resourceVersion of before
		// it is answered 410 Gone, which the managers' watches met too and went on from by
		// listing again (the Foos converged, with no restart).
		expectWatchExpired(ctx, world.Namespace, pods.ResourceVersion)
	})

	It("comes back from a 30s apiserver outage under the kubelet's back-off, without a crash loop", func(ctx context.Context) {
		const outage = 30 * time.Second
		var unavailable time.Duration
		figures := underChurn(ctx, world, "Apiserver outage", fmt.Sprintf("kube-apiserver stopped (SIGTERM) for %s and started again", outage),
			func(ctx context.Context, _ *suite.FaultFigures) {
				stopping := time.Now()
				Expect(cluster.StopAPIServer()).To(Succeed())
				time.Sleep(max(0, outage-time.Since(stopping)))
				Expect(cluster.StartAPIServer(ctx)).To(Succeed())
				ready := time.Now()
				// The apiserver is back for the operator's pods only once kube-proxy has its
				// endpoint again: measured from here on.
				Expect(cluster.AwaitKubernetesService(ctx, 2*time.Minute)).To(Succeed())
				unavailable = time.Since(stopping)
				AddReportEntry("Apiserver outage: the kubernetes Service reachable from the node after kube-apiserver was ready",
					time.Since(ready).Round(100*time.Millisecond).String())
			})
		// A leader that cannot renew its Lease ends its process, which the kubelet restarts
		// after its back-off (10s, doubling); a standby only keeps trying, and a replica
		// started while the apiserver is away waits for it (45s at most). So each replica
		// restarts at most once for its own exit plus once per back-off begun in the outage.
		replicas := int32(2)
		Expect(figures.Restarts).To(BeNumerically("<=", replicas*kubeletRestartsBound(unavailable)),
			"restarts of the operator's containers for an apiserver unavailable to pods for %s", unavailable.Round(time.Second))
		// Once every replica is up again, it stays up: no crash loop.
		expectOperatorReady(ctx)
		restarts := operatorRestarts(ctx)
		Consistently(operatorRestarts).WithContext(ctx).WithTimeout(15*time.Second).WithPolling(time.Second).Should(Equal(restarts),
			"restarts of the operator's containers once they are all up again after the outage: no crash loop")
		expectOperatorReady(ctx)
	})
})

// kubeletRestartsBound is the most restarts of one container that exits when it loses the
// apiserver, for an outage: its own exit, then one start at the end of each of the kubelet's
// back-offs (10s, 20s, 40s, ...) that began before the apiserver was back.
func kubeletRestartsBound(outage time.Duration) int32 {
	bound := int32(1)
	for waited, backOff := time.Duration(0), 10*time.Second; waited < outage; backOff *= 2 {
		waited += backOff
		bound++
	}
	return bound
}

// scaleOperator sets the replicas of the operator's Deployment and waits until they are
// all available.
func scaleOperator(ctx context.Context, replicas int32) {
	GinkgoHelper()
	deployment := &appsv1.Deployment{}
	key := client.ObjectKey{Namespace: harness.OperatorNamespace, Name: harness.OperatorDeployment}
	Expect(k8sClient.Get(ctx, key, deployment)).To(Succeed())
	patch := client.MergeFrom(deployment.DeepCopy())
	deployment.Spec.Replicas = ptr.To(replicas)
	Expect(k8sClient.Patch(ctx, deployment, patch)).To(Succeed())
	expectOperatorRolledOut(ctx, fmt.Sprintf("with %d replicas", replicas))
}

// expectOperatorRolledOut waits until the operator's Deployment has rolled its latest
// change out: every replica updated and available, no old one left.
func expectOperatorRolledOut(ctx context.Context, what string) {
	GinkgoHelper()
	deployment := &appsv1.Deployment{}
	key := client.ObjectKey{Namespace: harness.OperatorNamespace, Name: harness.OperatorDeployment}
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, key, deployment)).To(Succeed())
		g.Expect(deployment.Status.ObservedGeneration).To(Equal(deployment.Generation))
		g.Expect(deployment.Status.UpdatedReplicas).To(Equal(*deployment.Spec.Replicas))
		g.Expect(deployment.Status.AvailableReplicas).To(Equal(*deployment.Spec.Replicas))
		g.Expect(deployment.Status.Replicas).To(Equal(*deployment.Spec.Replicas))
	}).WithContext(ctx).Should(Succeed(), func() string {
		return fmt.Sprintf("the operator rolled out %s; its pods: %s", what,
			cluster.DescribePods(ctx, harness.OperatorNamespace, "control-plane=controller-manager"))
	})
}

// expectOperatorReady waits until every pod of the operator is Ready.
func expectOperatorReady(ctx context.Context) {
	GinkgoHelper()
	var pods []corev1.Pod
	Eventually(func(g Gomega) {
		var err error
		pods, err = operatorPods(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(pods).NotTo(BeEmpty())
		for _, pod := range pods {
			g.Expect(pod.Status.ContainerStatuses).To(HaveEach(HaveField("Ready", BeTrue())), localcluster.DescribePod(&pod))
		}
	}).WithContext(ctx).Should(Succeed(), "every pod of the operator Ready")
}

// operatorContainers names the operator's containers now: pod, container ID, restarts.
func operatorContainers(ctx context.Context) []string {
	GinkgoHelper()
	pods, err := operatorPods(ctx)
	Expect(err).NotTo(HaveOccurred())
	var containers []string
	for _, pod := range pods {
		for _, status := range pod.Status.ContainerStatuses {
			containers = append(containers, fmt.Sprintf("%s %s restarts=%d", pod.Name, status.ContainerID, status.RestartCount))
		}
	}
	return containers
}

// The figures of every fault, as a table for docs/reliability.md; also appended to the file
// NODE_FAULTS_REPORT names, if any, so that several runs can be compared.
var _ = ReportAfterSuite("fault figures", func(Report) {
	if len(measured) == 0 {
		return
	}
	table := suite.FaultTable(measured)
	fmt.Print("\nFault figures:\n" + table)
	if path := os.Getenv("NODE_FAULTS_REPORT"); path != "" {
		file, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			_, err = fmt.Fprintf(file, "\nRun of %s:\n\n%s", time.Now().UTC().Format(time.RFC3339), table)
			err = errors.Join(err, file.Close())
		}
		if err != nil {
			fmt.Printf("Writing the fault figures to %s: %v\n", path, err)
		}
	}
})

// saveOperatorLogs writes the logs of the operator's containers, the current and the
// previous one of each pod, next to the cluster's process logs, which the suite keeps.
func saveOperatorLogs(ctx context.Context) {
	pods, err := operatorPods(ctx)
	if err != nil {
		GinkgoWriter.Printf("Listing the operator's pods for their logs: %v\n", err)
		return
	}
	for _, pod := range pods {
		for _, previous := range []bool{true, false} {
			logs, err := clientset.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Previous: previous}).DoRaw(ctx)
			if err != nil {
				continue // no previous container
			}
			name := "operator-" + pod.Name + ".log"
			if previous {
				name = "operator-" + pod.Name + "-previous.log"
			}
			if err := os.WriteFile(filepath.Join(cluster.LogDir, name), logs, 0o644); err != nil {
				GinkgoWriter.Printf("Saving the log of %s: %v\n", pod.Name, err)
			}
		}
	}
}

// expectWatchExpired expects a watch of the pods of namespace from resourceVersion to be
// refused as expired, 410 Gone, at its start or as its first event. Any other refusal (the
// restarted apiserver's storage still initializing) is retried; a watch that delivers an
// object instead was not expired, and fails at once.
func expectWatchExpired(ctx context.Context, namespace, resourceVersion string) {
	GinkgoHelper()
	isExpired := func(err error) bool { return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) }
	Eventually(func(g Gomega) {
		watcher, err := clientset.CoreV1().Pods(namespace).Watch(ctx, metav1.ListOptions{ResourceVersion: resourceVersion})
		if err != nil {
			g.Expect(isExpired(err)).To(BeTrue(), "the error of starting the watch: %v", err)
			return
		}
		defer watcher.Stop()
		var event watch.Event
		g.Eventually(watcher.ResultChan()).WithTimeout(10*time.Second).Should(Receive(&event), "a first event of the watch")
		if event.Type != watch.Error {
			StopTrying(fmt.Sprintf("the first event of a watch from the compacted resourceVersion %s is %s, not an error", resourceVersion, event.Type)).Now()
		}
		g.Expect(isExpired(apierrors.FromObject(event.Object))).To(BeTrue(), "the error event of the watch: %v", apierrors.FromObject(event.Object))
	}).WithContext(ctx).WithTimeout(30*time.Second).Should(Succeed(),
		"a watch of pods from resourceVersion %s refused as expired, 410 Gone", resourceVersion)
}
