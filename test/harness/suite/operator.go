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
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
)

// InstalledOperator is the operator's Deployment as an installer left it on a cluster with a
// node (`make deploy`, or OLM from the catalog): where its pods and its leader Lease are.
type InstalledOperator struct {
	Client    client.Client
	Clientset kubernetes.Interface
	// LogDir receives the logs of the operator's containers (SaveLogs): beside the logs of
	// the cluster's processes, when the suite started the cluster.
	LogDir string
	// Namespace holds the operator's Deployment and its leader election Lease.
	Namespace string
	// Deployment names the operator's Deployment: harness.OperatorDeployment when empty, as
	// every installer but a Helm release of another name makes it.
	Deployment string

	// restartsSeen is the restart count last seen of each pod of the operator, gone ones
	// included: a pod replaced during a fault does not take its restarts with it.
	restartsSeen sync.Map // types.UID -> int32
}

// deploymentKey names the operator's Deployment.
func (o *InstalledOperator) deploymentKey() client.ObjectKey {
	if o.Deployment != "" {
		return client.ObjectKey{Namespace: o.Namespace, Name: o.Deployment}
	}
	return client.ObjectKey{Namespace: o.Namespace, Name: harness.OperatorDeployment}
}

// describePods tells the state of every pod of the operator, for a failure message.
func (o *InstalledOperator) describePods(ctx context.Context) string {
	return resources.DescribePods(ctx, o.Clientset, o.Namespace, "control-plane=controller-manager")
}

// Pods returns the pods of the operator's Deployment that are not being deleted.
func (o *InstalledOperator) Pods(ctx context.Context) ([]corev1.Pod, error) {
	deployment := &appsv1.Deployment{}
	if err := o.Client.Get(ctx, o.deploymentKey(), deployment); err != nil {
		return nil, err
	}
	selector, err := metav1.LabelSelectorAsSelector(deployment.Spec.Selector)
	if err != nil {
		return nil, err
	}
	var pods corev1.PodList
	if err := o.Client.List(ctx, &pods, client.InNamespace(o.Namespace), client.MatchingLabelsSelector{Selector: selector}); err != nil {
		return nil, err
	}
	var live []corev1.Pod
	for _, pod := range pods.Items {
		var restarts int32
		for _, status := range pod.Status.ContainerStatuses {
			restarts += status.RestartCount
		}
		if seen, ok := o.restartsSeen.Load(pod.UID); !ok || seen.(int32) < restarts {
			o.restartsSeen.Store(pod.UID, restarts)
		}
		if pod.DeletionTimestamp == nil {
			live = append(live, pod)
		}
	}
	return live, nil
}

// Pod returns the one pod of the operator's Deployment that is not being deleted.
func (o *InstalledOperator) Pod(ctx context.Context) (*corev1.Pod, error) {
	pods, err := o.Pods(ctx)
	if err != nil {
		return nil, err
	}
	if len(pods) != 1 {
		return nil, fmt.Errorf("want one pod of the operator in %s, found %d: %s", o.Namespace, len(pods), o.describePods(ctx))
	}
	return &pods[0], nil
}

// Restarts is the sum of the restart counts of the operator's containers: of the pods it has
// now, and of every pod of it seen before and gone since, at the count last seen of it. A
// Deployment that replaced a pod that had restarted (OLM reinstalling the CSV, say) does not
// make those restarts vanish from a bound.
func (o *InstalledOperator) Restarts(ctx context.Context) int32 {
	GinkgoHelper()
	_, err := o.Pods(ctx)
	Expect(err).NotTo(HaveOccurred())
	var restarts int32
	o.restartsSeen.Range(func(_, seen any) bool {
		restarts += seen.(int32)
		return true
	})
	return restarts
}

// Containers names the operator's containers now: pod, container ID, restarts.
func (o *InstalledOperator) Containers(ctx context.Context) []string {
	GinkgoHelper()
	pods, err := o.Pods(ctx)
	Expect(err).NotTo(HaveOccurred())
	var containers []string
	for _, pod := range pods {
		for _, status := range pod.Status.ContainerStatuses {
			containers = append(containers, fmt.Sprintf("%s %s restarts=%d", pod.Name, status.ContainerID, status.RestartCount))
		}
	}
	return containers
}

// LeaseHolder is who holds the operator's leader election Lease now (harness.LeaseHolder).
func (o *InstalledOperator) LeaseHolder(ctx context.Context) (string, error) {
	return harness.LeaseHolder(ctx, o.Client, o.Namespace)
}

// Bounds of the waits on the operator's pods and Lease: a replica is Ready, and a new leader
// takes the Lease (one lease duration, 15 s, after the old one stopped renewing, plus the
// retry period), well within them.
const (
	leaderTimeout   = 2 * time.Minute
	takeoverTimeout = 90 * time.Second
	rolloutTimeout  = 5 * time.Minute
)

// LeaderPod is the operator's pod that holds the leader Lease, and the holder's identity.
func (o *InstalledOperator) LeaderPod(ctx context.Context) (*corev1.Pod, string) {
	GinkgoHelper()
	var holder string
	var leader *corev1.Pod
	Eventually(func(g Gomega) {
		var err error
		holder, err = o.LeaseHolder(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		pods, err := o.Pods(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		leader = nil
		for i := range pods {
			if strings.HasPrefix(holder, pods[i].Name+"_") {
				leader = &pods[i]
			}
		}
		g.Expect(leader).NotTo(BeNil(), "no pod of the operator holds the Lease, held by %q; its pods: %s", holder, o.describePods(ctx))
	}).WithContext(ctx).WithTimeout(leaderTimeout).Should(Succeed(), "the operator's pod that holds the leader Lease")
	return leader, holder
}

// AwaitTakeover waits until someone other than holder holds the leader Lease, and returns
// how long that took from since.
func (o *InstalledOperator) AwaitTakeover(ctx context.Context, holder string, since time.Time) time.Duration {
	GinkgoHelper()
	var last string
	Eventually(func() (string, error) {
		var err error
		last, err = o.LeaseHolder(ctx)
		return last, err
	}).WithContext(ctx).WithTimeout(takeoverTimeout).WithPolling(100*time.Millisecond).ShouldNot(Or(BeEmpty(), Equal(holder)),
		func() string {
			return fmt.Sprintf("a new holder of the leader Lease, held by %q; it is held by %q", holder, last)
		})
	return time.Since(since)
}

// ExpectReady waits until every pod of the operator is Ready.
func (o *InstalledOperator) ExpectReady(ctx context.Context) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		pods, err := o.Pods(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(pods).NotTo(BeEmpty())
		for _, pod := range pods {
			g.Expect(pod.Status.ContainerStatuses).To(HaveEach(HaveField("Ready", BeTrue())), resources.DescribePod(&pod))
		}
	}).WithContext(ctx).WithTimeout(leaderTimeout).Should(Succeed(), "every pod of the operator Ready")
}

// ExpectRolledOut waits until the operator's Deployment has rolled its latest change out:
// replicas of them, every one updated and available, no old one left.
func (o *InstalledOperator) ExpectRolledOut(ctx context.Context, replicas int32, what string) {
	GinkgoHelper()
	deployment := &appsv1.Deployment{}
	Eventually(func(g Gomega) {
		g.Expect(o.Client.Get(ctx, o.deploymentKey(), deployment)).To(Succeed())
		g.Expect(deployment.Spec.Replicas).To(HaveValue(Equal(replicas)), "the Deployment's replicas")
		g.Expect(deployment.Status.ObservedGeneration).To(Equal(deployment.Generation))
		g.Expect(deployment.Status.UpdatedReplicas).To(Equal(replicas))
		g.Expect(deployment.Status.AvailableReplicas).To(Equal(replicas))
		g.Expect(deployment.Status.Replicas).To(Equal(replicas))
	}).WithContext(ctx).WithTimeout(rolloutTimeout).Should(Succeed(), func() string {
		return fmt.Sprintf("the operator rolled out %s; its pods: %s", what, o.describePods(ctx))
	})
}

// LogsOnFailure prints the logs of the operator's pods if the current spec failed.
func (o *InstalledOperator) LogsOnFailure(ctx context.Context) {
	if !CurrentSpecReport().Failed() {
		return
	}
	pods, err := o.Pods(ctx)
	if err != nil {
		GinkgoWriter.Printf("Listing the operator's pods: %v\n", err)
		return
	}
	for _, pod := range pods {
		GinkgoWriter.Printf("Pod %s: %s\n", pod.Name, resources.DescribePod(&pod))
		logs, err := o.Clientset.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{TailLines: ptr.To[int64](50)}).DoRaw(ctx)
		GinkgoWriter.Printf("Its log (%v):\n%s\n", err, logs)
	}
}

// SaveLogs writes the logs of the operator's containers, the current and the previous one of
// each pod, next to the cluster's process logs, which the suites keep.
func (o *InstalledOperator) SaveLogs(ctx context.Context) {
	pods, err := o.Pods(ctx)
	if err != nil {
		GinkgoWriter.Printf("Listing the operator's pods for their logs: %v\n", err)
		return
	}
	for _, pod := range pods {
		for _, previous := range []bool{true, false} {
			logs, err := o.Clientset.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{Previous: previous}).DoRaw(ctx)
			if err != nil {
				continue // no previous container
			}
			name := "operator-" + pod.Name + ".log"
			if previous {
				name = "operator-" + pod.Name + "-previous.log"
			}
			if err := os.WriteFile(filepath.Join(o.LogDir, name), logs, 0o644); err != nil {
				GinkgoWriter.Printf("Saving the log of %s: %v\n", pod.Name, err)
			}
		}
	}
}
