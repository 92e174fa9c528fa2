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

package security

import (
	"context"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/test/harness"
)

// grantedRules returns the rules of the rendered Role or ClusterRole kind/name.
func grantedRules(kind, name string) []rbacv1.PolicyRule {
	GinkgoHelper()
	object := harness.Find(environment.Installed, kind, name)
	Expect(object).NotTo(BeNil(), "config/default renders no %s %s", kind, name)
	var role rbacv1.ClusterRole // a Role has the same rules field
	Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &role)).To(Succeed())
	return role.Rules
}

var _ = Describe("RBAC as shipped", func() {
	// The lists of harness say which code needs each permission; the OLM suite measures
	// what OLM grants from the CSV by them too.
	DescribeTable("grants the manager exactly the permissions its code uses",
		func(kind, name string, needed []harness.Permission) {
			granted := harness.Permissions(grantedRules(kind, name))
			want := sets.New(needed...)
			Expect(granted.Difference(want).UnsortedList()).To(BeEmpty(), "granted but not used by the code")
			Expect(want.Difference(granted).UnsortedList()).To(BeEmpty(), "used by the code but not granted")
		},
		Entry("the controller (role.yaml, from the +kubebuilder:rbac markers)", "ClusterRole", harness.ManagerRole, harness.ControllerPermissions),
		Entry("leader election, in the operator's namespace", "Role", "foo-operator-leader-election-role", harness.LeaderElectionPermissions),
		Entry("the secure metrics endpoint's checks of its callers", "ClusterRole", "foo-operator-metrics-auth-role", harness.MetricsAuthPermissions),
		Entry("scraping the metrics", "ClusterRole", harness.MetricsReaderRole, harness.MetricsReaderPermissions),
	)

	DescribeTable("refuses the operator's ServiceAccount what it must not do",
		func(ctx context.Context, namespace, group, resource, subresource, verb string) {
			allowed, err := harness.ServiceAccountAllowed(ctx, environment.ControlPlane.Client,
				harness.OperatorNamespace, harness.OperatorServiceAccount, authorizationv1.ResourceAttributes{
					Namespace: namespace, Group: group, Resource: resource, Subresource: subresource, Verb: verb,
				})
			Expect(err).NotTo(HaveOccurred())
			Expect(allowed).To(BeFalse(), "the operator may %s %s/%s", verb, resource, subresource)
		},
		Entry("change a Foo's spec", "team-a", "tutorial.my.domain", "foos", "", "update"),
		Entry("delete a Foo", "team-a", "tutorial.my.domain", "foos", "", "delete"),
		Entry("update a Foo's status with a full update", "team-a", "tutorial.my.domain", "foos", "status", "update"),
		Entry("delete a pod", "team-a", "", "pods", "", "delete"),
		Entry("read secrets", "team-a", "", "secrets", "", "get"),
	)

	It("confines the leader election to the operator's own Lease: it may update or delete no other, in its namespace or the cluster's",
		func(ctx context.Context) {
			violations, err := harness.LeaseConfinementViolations(ctx, environment.ControlPlane.Client,
				harness.OperatorNamespace, harness.OperatorServiceAccount)
			Expect(err).NotTo(HaveOccurred())
			Expect(violations).To(BeEmpty())
		})

	It("runs the product story with only the shipped RBAC and is never forbidden", func(ctx context.Context) {
		manager := environment.StartOperator(ctx, "rbac")
		namespace, err := environment.ControlPlane.CreateNamespace(ctx, "rbac-")
		Expect(err).NotTo(HaveOccurred())
		c := environment.ControlPlane.Client

		By("becoming leader through the Lease in its namespace")
		Eventually(func(g Gomega) {
			var lease coordinationv1.Lease
			g.Expect(c.Get(ctx, client.ObjectKey{Namespace: harness.OperatorNamespace, Name: harness.LeaderElectionLease}, &lease)).To(Succeed())
			g.Expect(lease.Spec.HolderIdentity).NotTo(BeNil())
		}).Should(Succeed())

		By("playing the story: foo-01 looks for jack, foo-02 for joe; jack comes; foo-02 turns to jack; jack goes")
		foo01, foo02 := harness.NewFoo(namespace, "foo-01", "jack"), harness.NewFoo(namespace, "foo-02", "joe")
		Expect(c.Create(ctx, foo01)).To(Succeed())
		Expect(c.Create(ctx, foo02)).To(Succeed())
		expectStatusesRight(ctx, namespace)
		jack := harness.NewPod(namespace, "jack")
		Expect(c.Create(ctx, jack)).To(Succeed())
		expectStatusesRight(ctx, namespace)
		Expect(c.Patch(ctx, foo02, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"name":"jack"}}`)))).To(Succeed())
		expectStatusesRight(ctx, namespace)
		Expect(c.Delete(ctx, jack)).To(Succeed())
		expectStatusesRight(ctx, namespace)

		By("recording the four happy transitions as Events: foo-01 and foo-02 found jack, then lost him " +
			"(seen terminating, or already gone)")
		Eventually(func(g Gomega) []string {
			var events corev1.EventList
			g.Expect(c.List(ctx, &events, client.InNamespace(namespace))).To(Succeed())
			transitions := make([]string, 0, len(events.Items))
			for _, event := range events.Items {
				transitions = append(transitions, fmt.Sprintf("%s %s x%d", event.InvolvedObject.Name, event.Reason, event.Count))
			}
			return transitions
		}).Should(ConsistOf("foo-01 FriendFound x1", "foo-02 FriendFound x1",
			MatchRegexp(`^foo-01 Friend(NotFound|Terminating) x1$`), MatchRegexp(`^foo-02 Friend(NotFound|Terminating) x1$`)))

		By("stopping, and finding no forbidden request in the log")
		_, err = manager.Stop(10 * time.Second)
		Expect(err).NotTo(HaveOccurred())
		for _, line := range strings.Split(manager.Logs(), "\n") {
			Expect(strings.ToLower(line)).NotTo(ContainSubstring("forbidden"))
		}
	})
})

func expectStatusesRight(ctx context.Context, namespace string) {
	GinkgoHelper()
	Eventually(func(g Gomega) string {
		wrong, err := environment.ControlPlane.WrongStatuses(ctx, namespace)
		g.Expect(err).NotTo(HaveOccurred())
		return harness.Summary(wrong)
	}).Should(BeEmpty())
}
