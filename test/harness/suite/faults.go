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
	"errors"
	"fmt"
	"os"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/test/testcluster"
)

// The faults users' nodes meet, each injected under churn into the node of a local cluster
// that runs the operator with two replicas. The node suite runs them on the operator as
// `make deploy` installs it, the OLM suite on the operator as OLM v0 installs it from the
// catalog: the same specs, from here.

// Each spec is labelled with the capability of the cluster it needs (testcluster), so that a
// suite on a cluster without it leaves it out. The ones that stop kube-apiserver and start it
// again (expired watches, the outage; label testcluster.APIServerRestart) are the longest,
// and the same on every install, since they reach the operator through its apiserver and
// kubelet: `.ci/run` runs them on one install.

// capability returns the cluster as the interface of one of its capabilities, failing the
// spec, which should have been left out by its label, if it has not that capability.
func capability[T any](cluster testcluster.Cluster, name testcluster.Capability) T {
	GinkgoHelper()
	typed, err := testcluster.As[T](cluster, name)
	Expect(err).NotTo(HaveOccurred())
	return typed
}

// leaderRenewDeadline is how long the manager's leader keeps trying to renew its Lease
// before it ends (the default of --leader-elect-renew-deadline, which config/manager keeps).
const leaderRenewDeadline = 10 * time.Second

// NodeFaults is what the fault specs need: the cluster whose node they break, the operator
// on it, and the world of Foos it keeps right. The suite fills it in before the specs run
// (in a BeforeAll).
type NodeFaults struct {
	// Cluster is the cluster whose node and apiserver the specs break: each spec needs the
	// capability it is labelled with.
	Cluster  testcluster.Cluster
	Operator *InstalledOperator
	World    *FriendWorld
	// Replicas is how many replicas of the operator run during the faults.
	Replicas int32
	// Healthy, if set, waits until the installer tells that the operator is healthy again
	// after a fault (OLM: its ClusterServiceVersion Succeeded again).
	Healthy func(ctx context.Context)
	// Measured collects the figures of every fault, for the suite's table.
	Measured *[]FaultFigures
}

// underChurn injects a fault in the world under churn (FriendWorld.UnderChurn), keeps its
// figures, and waits for the installer's word that the operator is healthy.
func (f *NodeFaults) underChurn(ctx context.Context, fault, injected string,
	inject func(ctx context.Context, figures *FaultFigures)) FaultFigures {
	GinkgoHelper()
	figures := f.World.UnderChurn(ctx, fault, injected, inject)
	*f.Measured = append(*f.Measured, figures)
	f.Operator.ExpectReady(ctx)
	if f.Healthy != nil {
		f.Healthy(ctx)
	}
	return figures
}

// NodeFaultSpecs declares the fault specs, in the Ordered container that calls it, on what
// faults holds once its BeforeAll has run.
func NodeFaultSpecs(faults *NodeFaults) {
	It("hands the Lease over when the leader's container is killed, and its Foos stay right", Label(string(testcluster.ContainerKill)),
		func(ctx context.Context) {
			runtime := capability[testcluster.ContainerKiller](faults.Cluster, testcluster.ContainerKill)
			faults.underChurn(ctx, "Leader killed", "the leader's container SIGKILLed through containerd",
				func(ctx context.Context, figures *FaultFigures) {
					leader, holder := faults.Operator.LeaderPod(ctx)
					killed := time.Now()
					Expect(runtime.SignalContainer(ctx, leader.Status.ContainerStatuses[0].ContainerID, "SIGKILL")).To(Succeed())
					figures.Takeover = faults.Operator.AwaitTakeover(ctx, holder, killed)
				})
		})

	It("keeps running through a kubelet restart", Label(string(testcluster.NodeRestart)), func(ctx context.Context) {
		node := capability[testcluster.NodeRestarter](faults.Cluster, testcluster.NodeRestart)
		before := faults.Operator.Containers(ctx)
		faults.underChurn(ctx, "kubelet restarted", "the node's kubelet stopped with SIGTERM and started again",
			func(ctx context.Context, _ *FaultFigures) {
				Expect(node.RestartKubelet(ctx)).To(Succeed())
			})
		Expect(faults.Operator.Containers(ctx)).To(Equal(before), "the operator's containers, which the kubelet's restart must not touch")
	})

	It("keeps running through a containerd restart", Label(string(testcluster.NodeRestart)), func(ctx context.Context) {
		node := capability[testcluster.NodeRestarter](faults.Cluster, testcluster.NodeRestart)
		before := faults.Operator.Containers(ctx)
		faults.underChurn(ctx, "containerd restarted", "the node's containerd stopped with SIGTERM and started again",
			func(ctx context.Context, _ *FaultFigures) {
				Expect(node.RestartContainerd(ctx)).To(Succeed())
			})
		Expect(faults.Operator.Containers(ctx)).To(Equal(before), "the operator's containers, which run on under their shims")
	})

	It("recovers from a network partition between the leader's pod and the apiserver", Label(string(testcluster.Partition)), func(ctx context.Context) {
		network := capability[testcluster.Partitioner](faults.Cluster, testcluster.Partition)
		const partition = 20 * time.Second
		injected := fmt.Sprintf("the leader pod's packets to the apiserver dropped for %s (nftables, in the node's network)", partition)
		faults.underChurn(ctx, "Leader partitioned", injected,
			func(ctx context.Context, figures *FaultFigures) {
				leader, holder := faults.Operator.LeaderPod(ctx)
				cut := time.Now()
				restore, err := network.CutFromAPIServer(ctx, leader.Status.PodIP)
				Expect(err).NotTo(HaveOccurred())
				DeferCleanup(restore)
				figures.Takeover = faults.Operator.AwaitTakeover(ctx, holder, cut)
				time.Sleep(max(0, partition-time.Since(cut)))
				Expect(restore(ctx)).To(Succeed())
			})
	})

	It("relists after its watches expire, without a restart unless the apiserver stays down past the renew deadline",
		Label(string(testcluster.APIServerRestart)), func(ctx context.Context) {
			cluster := capability[testcluster.APIServerRestarter](faults.Cluster, testcluster.APIServerRestart)
			var restartsBefore int32
			var down time.Duration
			// A witness of what the managers' watches meet: the resourceVersion of the pods just
			// before the fault, no older than any the managers watch from.
			var pods corev1.PodList
			faults.underChurn(ctx, "Watches expired",
				"kube-apiserver SIGKILLed, etcd compacted, kube-apiserver started again: every watch resumes from a compacted revision",
				func(ctx context.Context, _ *FaultFigures) {
					Expect(faults.Operator.Client.List(ctx, &pods, client.InNamespace(faults.World.Namespace))).To(Succeed())
					// Counted at the kill, not when the spec starts: a replica the previous fault
					// made exit can come back under the kubelet's back-off after that spec ended
					// (seen: one came back 10s before this kill), and that restart is not this fault's.
					restartsBefore = faults.Operator.Restarts(ctx)
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
			// can take longer to be ready again (measured: down 6.3s to 34s). A leader that could
			// not renew for that long ends by design; in the run where it was down 34s, each of
			// the two replicas restarted once. One restart per replica is then allowed.
			allowedRestarts := restartsBefore
			if down >= leaderRenewDeadline {
				allowedRestarts += faults.Replicas
				AddReportEntry("Watches expired: the apiserver was down longer than the leader's renew deadline", down.String())
			}
			Expect(faults.Operator.Restarts(ctx)).To(BeNumerically("<=", allowedRestarts),
				"restarts of the operator's containers, with the apiserver down %s", down.Round(100*time.Millisecond))
			// The fault really expired the watches: one resumed from a resourceVersion of before
			// it is answered 410 Gone, which the managers' watches met too and went on from by
			// listing again (the Foos converged).
			expectWatchExpired(ctx, faults.Operator, faults.World.Namespace, pods.ResourceVersion)
		})

	It("comes back from a 30s apiserver outage under the kubelet's back-off, without a crash loop",
		Label(string(testcluster.APIServerRestart)), func(ctx context.Context) {
			const outage = 30 * time.Second
			cluster := capability[testcluster.APIServerRestarter](faults.Cluster, testcluster.APIServerRestart)
			var unavailable time.Duration
			figures := faults.underChurn(ctx, "Apiserver outage", fmt.Sprintf("kube-apiserver stopped (SIGTERM) for %s and started again", outage),
				func(ctx context.Context, _ *FaultFigures) {
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
			Expect(figures.Restarts).To(BeNumerically("<=", faults.Replicas*KubeletRestartsBound(unavailable)),
				"restarts of the operator's containers for an apiserver unavailable to pods for %s", unavailable.Round(time.Second))
			// Once every replica is up again, it stays up: no crash loop.
			restarts := faults.Operator.Restarts(ctx)
			Consistently(faults.Operator.Restarts).WithContext(ctx).WithTimeout(15*time.Second).WithPolling(time.Second).Should(Equal(restarts),
				"restarts of the operator's containers once they are all up again after the outage: no crash loop")
			faults.Operator.ExpectReady(ctx)
		})
}

// KubeletRestartsBound is the most restarts of one container that exits when it loses the
// apiserver, for an outage: its own exit, then one start at the end of each of the kubelet's
// back-offs (10s, 20s, 40s, ...) that began before the apiserver was back.
func KubeletRestartsBound(outage time.Duration) int32 {
	bound := int32(1)
	for waited, backOff := time.Duration(0), 10*time.Second; waited < outage; backOff *= 2 {
		waited += backOff
		bound++
	}
	return bound
}

// expectWatchExpired expects a watch of the pods of namespace from resourceVersion to be
// refused as expired, 410 Gone, at its start or as its first event. Any other refusal (the
// restarted apiserver's storage still initializing) is retried; a watch that delivers an
// object instead was not expired, and fails at once.
func expectWatchExpired(ctx context.Context, operator *InstalledOperator, namespace, resourceVersion string) {
	GinkgoHelper()
	isExpired := func(err error) bool { return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) }
	Eventually(func(g Gomega) {
		watcher, err := operator.Clientset.CoreV1().Pods(namespace).Watch(ctx, metav1.ListOptions{ResourceVersion: resourceVersion})
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

// ReportFaultTable prints the figures of every fault as a table for docs/reliability.md,
// and appends it to the file the environment variable reportVariable names, if any, so that
// several runs can be compared.
func ReportFaultTable(title string, figures []FaultFigures, reportVariable string) {
	if len(figures) == 0 {
		return
	}
	table := FaultTable(figures)
	fmt.Print("\n" + title + ":\n" + table)
	path := os.Getenv(reportVariable)
	if path == "" {
		return
	}
	file, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err == nil {
		_, err = fmt.Fprintf(file, "\n%s, run of %s:\n\n%s", title, time.Now().UTC().Format(time.RFC3339), table)
		err = errors.Join(err, file.Close())
	}
	if err != nil {
		fmt.Printf("Writing the fault figures to %s: %v\n", path, err)
	}
}
