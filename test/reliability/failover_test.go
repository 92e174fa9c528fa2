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
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/example/foo-operator/test/harness"
)

// Short leases keep the test short. The retry period bounds how soon a standby notices a
// released lease: it retries every 1 to 2.2 retry periods (client-go's jitter).
const (
	leaseDuration = 8 * time.Second
	retryPeriod   = 500 * time.Millisecond
)

var shortLeaseArgs = []string{
	"--leader-elect-lease-duration=" + leaseDuration.String(),
	"--leader-elect-renew-deadline=6s",
	"--leader-elect-retry-period=" + retryPeriod.String(),
}

// terminationGracePeriod is what the kubelet grants the manager pod between SIGTERM and
// SIGKILL, from the shipped Deployment.
func terminationGracePeriod() time.Duration {
	GinkgoHelper()
	object := harness.Find(environment.Installed, "Deployment", harness.OperatorDeployment)
	Expect(object).NotTo(BeNil())
	var deployment appsv1.Deployment
	Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &deployment)).To(Succeed())
	Expect(deployment.Spec.Template.Spec.TerminationGracePeriodSeconds).NotTo(BeNil())
	return time.Duration(*deployment.Spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second
}

// A leader that dies without a word (SIGKILL, a partition, an apiserver outage) is the
// node fault suite's (test/node, `make test-node-faults`): there the kubelet restarts the
// container with its own back-off. Here, what needs a process's exit code and exact timings:
// the planned handover and the graceful shutdown.
var _ = Describe("Leader election", func() {
	It("hands the lease to the standby within 2s when the leader ends on SIGTERM, all statuses right after", func(ctx context.Context) {
		namespace, friends := populate(ctx)

		By("starting a leader and a standby")
		first := environment.StartOperator(ctx, "first", shortLeaseArgs...)
		Eventually(isLeader(first)).Should(BeTrue())
		second := environment.StartOperator(ctx, "second", shortLeaseArgs...)
		Eventually(isCandidate(second)).Should(BeTrue())
		report("Initial convergence of 1000 Foos", expectAllStatusesRight(ctx, namespace).Round(time.Millisecond).String())

		By("ending the leader with SIGTERM while pods come and go")
		churning := startChurn(ctx, namespace, friends)
		time.Sleep(2 * time.Second) // be busy reconciling when the signal comes
		terminated := time.Now()
		Expect(first.Signal(syscall.SIGTERM)).To(Succeed())
		Eventually(isLeader(second)).WithPolling(20 * time.Millisecond).Should(BeTrue())
		handover := time.Since(terminated)
		report("Handover after SIGTERM of the leader", handover.Round(time.Millisecond).String())
		// The leader releases the lease as it ends, and the standby notices at its next
		// retry, within 1 to 2.2 retry periods (client-go's jitter).
		Expect(handover).To(BeNumerically("<=", 2*time.Second+500*time.Millisecond),
			"a leader that releases its lease on SIGTERM must be replaced within 2s")
		Eventually(first.Exited()).Should(BeClosed())
		Expect(first.ExitCode()).To(Equal(0))

		By("keeping every status right under the new leader")
		time.Sleep(2 * time.Second) // churn on under the new leader
		report("Pod creations and deletions during the handover", churning.Stop())
		// The churn may have left friends[0] either way: flip it, so the new leader has work.
		err := environment.ControlPlane.Client.Delete(ctx, harness.NewPod(namespace, friends[0]))
		if apierrors.IsNotFound(err) {
			err = environment.ControlPlane.Client.Create(ctx, harness.NewPod(namespace, friends[0]))
		}
		Expect(err).NotTo(HaveOccurred())
		report("Convergence after the churn stopped", expectAllStatusesRight(ctx, namespace).Round(time.Millisecond).String())
	})

	It("ends within the pod's termination grace period on SIGTERM and releases the lease", func(ctx context.Context) {
		namespace, friends := populate(ctx)
		manager := environment.StartOperator(ctx, "graceful")
		Eventually(isLeader(manager)).Should(BeTrue())
		startChurn(ctx, namespace, friends)
		time.Sleep(2 * time.Second) // be busy reconciling when the signal comes

		grace := terminationGracePeriod()
		took, err := manager.Stop(grace)
		Expect(err).NotTo(HaveOccurred(), "the kubelet would have killed it")
		report("Shutdown after SIGTERM", took.Round(time.Millisecond).String())
		Expect(manager.ExitCode()).To(Equal(0))
		Expect(leaseHolder(ctx)).To(BeEmpty(), "the lease must be released for the next replica")
	})
})
