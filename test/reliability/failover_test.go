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

var _ = Describe("Leader election", func() {
	It("fails over to the standby when the leader is killed under churn, and hands over on SIGTERM", func(ctx context.Context) {
		namespace, friends := populate(ctx)

		By("starting a leader and a standby")
		first := environment.StartOperator(ctx, "first", shortLeaseArgs...)
		Eventually(isLeader(first)).Should(BeTrue())
		second := environment.StartOperator(ctx, "second", shortLeaseArgs...)
		Eventually(isCandidate(second)).Should(BeTrue())
		report("Initial convergence of 1000 Foos", expectAllStatusesRight(ctx, namespace).Round(time.Millisecond).String())

		By("killing the leader with SIGKILL while pods come and go")
		churning := startChurn(ctx, namespace, friends)
		time.Sleep(3 * time.Second) // let the churn build up work in flight before the kill
		killed := time.Now()
		first.Kill()
		Eventually(isLeader(second)).WithPolling(50 * time.Millisecond).Should(BeTrue())
		takeover := time.Since(killed)
		report("Takeover after SIGKILL of the leader", takeover.Round(time.Millisecond).String())
		// The standby may take the lease once leaseDuration has passed since it last saw the
		// leader renew, and notices that at its next retry.
		Expect(takeover).To(BeNumerically("<=", leaseDuration+3*retryPeriod+2*time.Second),
			"the standby must take over within the lease duration")

		time.Sleep(3 * time.Second) // churn on under the new leader
		report("Pod creations and deletions during the failover", churning.Stop())
		report("Convergence after the churn stopped", expectAllStatusesRight(ctx, namespace).Round(time.Millisecond).String())

		By("handing over to a new standby with SIGTERM")
		third := environment.StartOperator(ctx, "third", shortLeaseArgs...)
		Eventually(isCandidate(third)).Should(BeTrue())
		terminated := time.Now()
		Expect(second.Signal(syscall.SIGTERM)).To(Succeed())
		Eventually(isLeader(third)).WithPolling(20 * time.Millisecond).Should(BeTrue())
		handover := time.Since(terminated)
		report("Handover after SIGTERM of the leader", handover.Round(time.Millisecond).String())
		Expect(handover).To(BeNumerically("<=", 2*time.Second+500*time.Millisecond),
			"a leader that releases its lease on SIGTERM must be replaced within 2s")
		Eventually(second.Exited()).Should(BeClosed())
		Expect(second.ExitCode()).To(Equal(0))

		By("keeping every status right under the new leader")
		// The churn may have left friends[0] either way: flip it, so the new leader has work.
		err := environment.ControlPlane.Client.Delete(ctx, harness.NewPod(namespace, friends[0]))
		if apierrors.IsNotFound(err) {
			err = environment.ControlPlane.Client.Create(ctx, harness.NewPod(namespace, friends[0]))
		}
		Expect(err).NotTo(HaveOccurred())
		expectAllStatusesRight(ctx, namespace)
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
