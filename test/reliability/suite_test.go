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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/hack/localcluster/managerprocess"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

// This suite breaks things under the operator while it works: it ends manager processes
// and fights the operator over the same Foos, then checks that every Foo's status ends
// right. The faults a node brings (killed containers, partitions, apiserver outages under
// the kubelet's back-off) are the node fault suite's, test/node. It runs the built manager binary with the operator
// ServiceAccount's token, as config/default installs it. It takes a few minutes, so it runs
// in `make test-reliability`, not in `make test`.

const (
	// fooCount is the number of Foos under churn; friendCount the number of pod names they
	// share, so that each pod event concerns several Foos.
	fooCount    = 1000
	friendCount = 200
)

// environment is the control plane with the operator installed, and the manager binary.
var environment = suite.EnvironmentBeforeSuite(suite.Options{
	WorkDirPrefix: "foo-reliability-", EventuallyTimeout: 2 * time.Minute, StopTimeout: 15 * time.Second,
})

func TestReliability(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Reliability suite")
}

// isLeader tells whether manager has become leader, from its log.
func isLeader(manager *managerprocess.Manager) func() bool {
	return func() bool { return strings.Contains(manager.Logs(), "Successfully acquired lease") }
}

// isCandidate tells whether manager has started to compete for the lease, from its log.
func isCandidate(manager *managerprocess.Manager) func() bool {
	return func() bool { return strings.Contains(manager.Logs(), "Attempting to acquire leader lease") }
}

// leaseHolder is who holds the operator's Lease (harness.LeaseHolder): empty once released.
func leaseHolder(ctx context.Context) (string, error) {
	return harness.LeaseHolder(ctx, environment.ControlPlane.Client, harness.OperatorNamespace)
}

// populate creates a namespace with fooCount Foos, Foo i looking for pod friend-(i mod
// friendCount), and the even-numbered friend pods.
func populate(ctx context.Context) (namespace string, friends []string) {
	GinkgoHelper()
	namespace, err := environment.ControlPlane.CreateNamespace(ctx, "reliability-")
	Expect(err).NotTo(HaveOccurred())
	for i := range friendCount {
		friends = append(friends, fmt.Sprintf("friend-%d", i))
	}
	group, groupCtx := errgroup.WithContext(ctx)
	group.SetLimit(8)
	for i := range fooCount {
		group.Go(func() error {
			return environment.ControlPlane.Client.Create(groupCtx, harness.NewFoo(namespace, fmt.Sprintf("foo-%04d", i), friends[i%friendCount]))
		})
	}
	for i := 0; i < friendCount; i += 2 {
		group.Go(func() error {
			return environment.ControlPlane.Client.Create(groupCtx, harness.NewPod(namespace, friends[i]))
		})
	}
	Expect(group.Wait()).To(Succeed())
	return namespace, friends
}

// startChurn creates and deletes friend pods from two workers, every 50ms each, deleting
// at once (grace period 0: no kubelet here to run one out), until stopped.
func startChurn(ctx context.Context, namespace string, friends []string) *suite.Churn {
	return suite.StartChurn(ctx, environment.ControlPlane.Client, 50*time.Millisecond, func() *corev1.Pod {
		return harness.NewPod(namespace, friends[rand.IntN(len(friends))])
	}, client.GracePeriodSeconds(0))
}

// expectAllStatusesRight waits until every Foo in namespace shows the right status, and
// returns how long that took.
func expectAllStatusesRight(ctx context.Context, namespace string) time.Duration {
	GinkgoHelper()
	start := time.Now()
	Eventually(func(g Gomega) string {
		wrong, err := environment.ControlPlane.WrongStatuses(ctx, namespace)
		g.Expect(err).NotTo(HaveOccurred())
		return harness.Summary(wrong)
	}).WithPolling(time.Second).Should(BeEmpty(), "Foos whose status is wrong")
	return time.Since(start)
}

// report records a measured figure in the test report.
func report(name string, value any) {
	AddReportEntry(name, value, ReportEntryVisibilityAlways)
}

// countLines counts the lines of log that contain text.
func countLines(log, text string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, text) {
			n++
		}
	}
	return n
}
