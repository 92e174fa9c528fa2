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
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/localcluster"
)

// restartingOperator runs the manager as a kubelet runs a container with restartPolicy
// Always: when the process ends, it starts a new one after a back-off that doubles from 1s,
// and it counts the restarts.
type restartingOperator struct {
	mu       sync.Mutex
	all      []*localcluster.Manager
	restarts int
	stop     chan struct{}
	done     chan struct{}
}

func startRestartingOperator(ctx context.Context, name string) *restartingOperator {
	GinkgoHelper()
	kubeconfig, err := environment.ControlPlane.OperatorKubeconfig(ctx, environment.WorkDir)
	Expect(err).NotTo(HaveOccurred())
	start := func(n int) (*localcluster.Manager, error) {
		return localcluster.StartManager(localcluster.ManagerOptions{
			Binary: environment.ManagerBin, Kubeconfig: kubeconfig, LogDir: environment.WorkDir, Name: fmt.Sprintf("%s-%d", name, n),
			Args: harness.LeaderElectionArgs,
		})
	}
	first, err := start(0)
	Expect(err).NotTo(HaveOccurred())
	r := &restartingOperator{all: []*localcluster.Manager{first}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		backOff := time.Second
		for {
			select {
			case <-r.stop:
				return
			case <-r.current().Exited():
			}
			select {
			case <-r.stop:
				return
			case <-time.After(backOff):
			}
			backOff *= 2
			r.mu.Lock()
			r.restarts++
			next, err := start(r.restarts)
			if err == nil {
				r.all = append(r.all, next)
			}
			r.mu.Unlock()
			if err != nil {
				GinkgoWriter.Printf("Restarting the manager failed: %v\n", err)
				return
			}
		}
	}()
	DeferCleanup(func() {
		close(r.stop)
		<-r.done
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, manager := range r.all {
			_, _ = manager.Stop(15 * time.Second)
			if CurrentSpecReport().Failed() {
				GinkgoWriter.Printf("Log of manager %s:\n%s\n", manager.Name, manager.Logs())
			}
		}
	})
	return r
}

func (r *restartingOperator) current() *localcluster.Manager {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.all[len(r.all)-1]
}

func (r *restartingOperator) restartCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.restarts
}

var _ = Describe("An apiserver outage", func() {
	It("is survived without a crash loop, and every status is right once the apiserver is back", func(ctx context.Context) {
		const outage = 10 * time.Second
		namespace, friends := populate(ctx)
		operator := startRestartingOperator(ctx, "outage")
		Eventually(isLeader(operator.current())).Should(BeTrue())
		expectAllStatusesRight(ctx, namespace)

		By("stopping kube-apiserver for 10s under churn, leaving etcd up")
		churning := startChurn(ctx, namespace, friends)
		time.Sleep(2 * time.Second) // churn before the outage, so that work is in flight
		stopping := time.Now()
		Expect(environment.ControlPlane.StopAPIServer()).To(Succeed())
		report("Time kube-apiserver took to stop", time.Since(stopping).Round(time.Millisecond).String())
		// kube-apiserver refuses new requests from SIGTERM on, but takes seconds to drain and
		// exit; the outage counts from SIGTERM.
		time.Sleep(max(0, outage-time.Since(stopping)))
		starting := time.Now()
		Expect(environment.ControlPlane.StartAPIServer(ctx)).To(Succeed())
		restarted := time.Now()
		report("Time kube-apiserver took to start again", restarted.Sub(starting).Round(time.Millisecond).String())
		report("Apiserver unavailable for", restarted.Sub(stopping).Round(time.Millisecond).String())

		By("converging once the apiserver is back")
		time.Sleep(2 * time.Second) // churn on against the restarted apiserver
		report("Pod creations and deletions around the outage", churning.Stop())
		// The pods the churn changed while the apiserver was down were not changed, and the
		// ones changed since must be seen through resumed watches.
		expectAllStatusesRight(ctx, namespace)
		report("Recovery after the apiserver came back", time.Since(restarted).Round(time.Millisecond).String())

		By("staying up once the apiserver is back")
		// With the shipped lease timings an outage longer than the renew deadline (10s) makes
		// the leader give up: controller-runtime then ends the process, so that two replicas
		// never act as leader at once, and the kubelet restarts it; a manager started while
		// the apiserver is still down waits for it (at most 45s, then exits). So the restarts
		// are bounded by the leader's own exit plus one per back-off that began while the
		// apiserver was down; and none may follow once it is back (no crash loop).
		restarts := operator.restartCount()
		report("Manager restarts during the outage", restarts)
		Expect(restarts).To(BeNumerically("<=", restartsBound(restarted.Sub(stopping))),
			"restarts of the manager for an apiserver unavailable for %s", restarted.Sub(stopping).Round(time.Second))
		Eventually(isLeader(operator.current())).Should(BeTrue())
		Consistently(operator.restartCount, "10s", "500ms").Should(Equal(restarts))

		By("still reconciling with the running manager")
		Expect(environment.ControlPlane.Client.Create(ctx, harness.NewFoo(namespace, "after-outage", friends[1]))).To(Succeed())
		expectAllStatusesRight(ctx, namespace)
	})
})

// restartsBound is the most restarts restartingOperator may make for an apiserver that is
// unavailable for outage: the leader's exit when it cannot renew its lease, then a start at
// the end of each back-off (1s, 2s, 4s, ...) that began while the apiserver was down.
func restartsBound(outage time.Duration) int {
	bound := 1
	for waited, backOff := time.Duration(0), time.Second; waited < outage; backOff *= 2 {
		waited += backOff
		bound++
	}
	return bound
}
