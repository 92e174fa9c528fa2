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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

// The faults users' nodes meet (suite.NodeFaultSpecs), each under churn, on the operator as
// `make deploy` installs it with two replicas. `make test-node-faults` runs them (label
// "faults"); `make test-node` leaves them out. The OLM suite runs the same specs on the
// operator as OLM installs it.
var _ = Describe("The operator on a node, under churn of its Foos' friends", Label("faults"), Ordered, func() {
	faults := &suite.NodeFaults{Operator: operator, Replicas: 2, Measured: &measured}

	BeforeAll(func(ctx context.Context) {
		faults.Cluster = cluster
		By(fmt.Sprintf("running the operator with %d replicas", faults.Replicas))
		scaleOperator(ctx, faults.Replicas)
		DeferCleanup(scaleOperator, int32(1))
		foos, friends := faultSizes()
		By(fmt.Sprintf("creating %d Foos looking for %d friend pods, half of them running", foos, friends))
		faults.World = suite.NewFriendWorld(ctx, suite.FriendWorldOptions{
			Client: k8sClient, Namespace: createNamespace(ctx, "faults-", nil), Foos: foos, Friends: friends,
			PauseImage: cluster.Image("pause"), BusyboxImage: cluster.Image("busybox"), OperatorRestarts: operator.Restarts,
		})
	})
	AfterEach(operator.LogsOnFailure)
	AfterAll(operator.SaveLogs)

	suite.NodeFaultSpecs(faults)
})

// measured collects every fault spec's figures for the report at the end of the suite.
var measured []suite.FaultFigures

// faultSizes are the numbers of Foos and of the friend pod names they share:
// NODE_FAULTS_FOOS and NODE_FAULTS_FRIENDS, the full world's unless set.
func faultSizes() (foos, friends int) {
	return suite.WorldSizes("NODE_FAULTS_FOOS", "NODE_FAULTS_FRIENDS")
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
	operator.ExpectRolledOut(ctx, replicas, fmt.Sprintf("with %d replicas", replicas))
}

// The figures of every fault, as a table for docs/reliability.md; also appended to the file
// NODE_FAULTS_REPORT names, if any, so that several runs can be compared.
var _ = ReportAfterSuite("fault figures", func(Report) {
	suite.ReportFaultTable("Fault figures (make deploy)", measured, "NODE_FAULTS_REPORT")
})
