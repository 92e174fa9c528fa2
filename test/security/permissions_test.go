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
	"regexp"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/hack/localcluster/managerprocess"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

// quietPeriod is how long a behaviour that needs a withdrawn permission must stay broken:
// with every permission, each happens within a second or two of the manager's start.
const quietPeriod = 5 * time.Second

// brokenBehaviour is what a user sees go wrong when the operator lacks one permission, and
// how the spec sees it: observe returns once it has seen the behaviour broken, with the
// manager started without the permission.
type brokenBehaviour struct {
	what    string
	observe func(ctx context.Context, manager *managerprocess.Manager, namespace string)
}

// permissionEntry is one row of the table: a permission the code uses, the installed role
// that grants it, and what breaks without it; env, if set, is the manager's environment.
type permissionEntry struct {
	permission harness.Permission
	roleKind   string
	roleName   string
	breaks     brokenBehaviour
	env        []string
}

// withoutStreamingLists runs the manager's informers as against an apiserver that does not
// stream their initial list in a watch (the WatchList feature, which Kubernetes releases
// before it lack, and the CSV's minKubeVersion is 1.25): they list. client-go asks for a
// streaming list by default, and falls back to a list when the apiserver refuses one; here
// the fallback is taken at once.
var withoutStreamingLists = []string{"KUBE_FEATURE_WatchListClient=false"}

var permissionEntries = []permissionEntry{
	{harness.ControllerPermissions[0], "ClusterRole", harness.ManagerRole, noStatusEver, withoutStreamingLists},
	{harness.ControllerPermissions[1], "ClusterRole", harness.ManagerRole, watchRelisted, nil},
	{harness.ControllerPermissions[2], "ClusterRole", harness.ManagerRole, noStatusEver, nil},
	{harness.ControllerPermissions[3], "ClusterRole", harness.ManagerRole, noStatusEver, withoutStreamingLists},
	{harness.ControllerPermissions[4], "ClusterRole", harness.ManagerRole, watchRelisted, nil},
	{harness.ControllerPermissions[5], "ClusterRole", harness.ManagerRole, noEvents, nil},
	{harness.ControllerPermissions[6], "ClusterRole", harness.ManagerRole, repeatsNotCounted, nil},
	{harness.LeaderElectionPermissions[0], "Role", leaderElectionRole, neverLeads, nil},
	{harness.LeaderElectionPermissions[1], "Role", leaderElectionRole, neverLeads, nil},
	{harness.LeaderElectionPermissions[2], "Role", leaderElectionRole, leaseNeverMade, nil},
	{harness.MetricsAuthPermissions[0], "ClusterRole", metricsAuthRole, scrapeNotAuthenticated, nil},
	{harness.MetricsAuthPermissions[1], "ClusterRole", metricsAuthRole, scrapeNotAuthorized, nil},
}

const (
	leaderElectionRole = "foo-operator-leader-election-role"
	metricsAuthRole    = "foo-operator-metrics-auth-role"
)

var _ = Describe("Every permission the operator is granted", func() {
	It("has a row in the table below, and each row one permission the code uses", func() {
		used := sets.New(harness.ControllerPermissions...).Insert(harness.LeaderElectionPermissions...).
			Insert(harness.MetricsAuthPermissions...)
		tabled := sets.New[harness.Permission]()
		for _, entry := range permissionEntries {
			tabled.Insert(entry.permission)
		}
		Expect(sets.List(permissionNames(used.Difference(tabled)))).To(BeEmpty(), "used by the code, with no row that takes it away")
		Expect(tabled.Len()).To(Equal(len(permissionEntries)), "a permission in two rows")
	})

	It("with every permission, counts a repeated Event: a Foo that finds the same friend twice has one Event of count 2", func(ctx context.Context) {
		environment.StartOperator(ctx, "every-permission")
		namespace, err := environment.ControlPlane.CreateNamespace(ctx, "every-permission-")
		Expect(err).NotTo(HaveOccurred())
		findJackTwice(ctx, namespace)
		Eventually(func() (int32, error) {
			return eventCount(ctx, namespace, tutorialv1.FriendFoundReason)
		}).WithContext(ctx).Should(Equal(int32(2)), "the count of the %s Event of foo-01", tutorialv1.FriendFoundReason)
	})

	for _, entry := range permissionEntries {
		It(fmt.Sprintf("is needed: without %s, %s", entry.permission, entry.breaks.what), func(ctx context.Context) {
			withdraw(ctx, entry.roleKind, entry.roleName, entry.permission)
			namespace, err := environment.ControlPlane.CreateNamespace(ctx, "without-")
			Expect(err).NotTo(HaveOccurred())
			manager := environment.StartOperatorWithEnv(ctx,
				"without-"+strings.ReplaceAll(entry.permission.Verb+"-"+entry.permission.Resource, "/", "-"), entry.env)
			entry.breaks.observe(ctx, manager, namespace)
			expectRefusalLogged(manager, entry.permission)
		})
	}
})

// permissionNames lists permissions as text, for messages.
func permissionNames(permissions sets.Set[harness.Permission]) sets.Set[string] {
	names := sets.New[string]()
	for permission := range permissions {
		names.Insert(permission.String())
	}
	return names
}

// withdraw takes permission away from the installed role kind/name (config/rbac as rendered)
// until the spec ends, and waits until the apiserver's authorizer refuses it.
func withdraw(ctx context.Context, kind, name string, permission harness.Permission) {
	GinkgoHelper()
	c := environment.ControlPlane.Client
	var role client.Object
	var rules *[]rbacv1.PolicyRule
	if kind == "ClusterRole" {
		clusterRole := &rbacv1.ClusterRole{}
		role, rules = clusterRole, &clusterRole.Rules
	} else {
		namespaced := &rbacv1.Role{}
		namespaced.Namespace = harness.OperatorNamespace
		role, rules = namespaced, &namespaced.Rules
	}
	role.SetName(name)
	Expect(c.Get(ctx, client.ObjectKeyFromObject(role), role)).To(Succeed())
	original := slices.Clone(*rules)
	DeferCleanup(func(ctx context.Context) {
		Expect(c.Get(ctx, client.ObjectKeyFromObject(role), role)).To(Succeed())
		*rules = original
		Expect(c.Update(ctx, role)).To(Succeed())
	})

	var kept []rbacv1.PolicyRule
	found := false
	for _, rule := range original {
		if harness.Permissions([]rbacv1.PolicyRule{rule}).Has(permission) {
			found = true
			rule = *rule.DeepCopy()
			rule.Verbs = slices.DeleteFunc(rule.Verbs, func(verb string) bool { return verb == permission.Verb })
			if len(rule.Verbs) == 0 {
				continue
			}
		}
		kept = append(kept, rule)
	}
	Expect(found).To(BeTrue(), "%s %s grants %s", kind, name, permission)
	*rules = kept
	Expect(c.Update(ctx, role)).To(Succeed())

	namespace := ""
	if kind == "Role" {
		namespace = harness.OperatorNamespace
	}
	Eventually(func() (bool, error) {
		return harness.ServiceAccountAllowed(ctx, c, harness.OperatorNamespace, harness.OperatorServiceAccount,
			authorizationv1.ResourceAttributes{Namespace: namespace, Group: permission.Group, Resource: resourceOf(permission),
				Subresource: subresourceOf(permission), Name: permission.ResourceName, Verb: permission.Verb})
	}).WithContext(ctx).Should(BeFalse(), "the apiserver refusing the operator %s once it is taken away", permission)
}

func resourceOf(permission harness.Permission) string {
	resource, _, _ := strings.Cut(permission.Resource, "/")
	return resource
}

func subresourceOf(permission harness.Permission) string {
	_, subresource, _ := strings.Cut(permission.Resource, "/")
	return subresource
}

// expectRefusalLogged waits until the manager's log names the request the apiserver refused
// it, in the apiserver's words: cannot <verb> resource "<resource>" (its quotes escaped in
// the manager's JSON lines).
func expectRefusalLogged(manager *managerprocess.Manager, permission harness.Permission) {
	GinkgoHelper()
	refused := regexp.MustCompile(fmt.Sprintf(`cannot %s resource \\?"%s\\?"`, permission.Verb, regexp.QuoteMeta(permission.Resource)))
	Eventually(manager.Logs).Should(MatchRegexp(refused.String()), "the manager's log naming the refused request: %s", permission)
}

// The behaviours a withdrawn permission breaks.
var (
	noStatusEver = brokenBehaviour{
		what: "no Foo ever gets a status",
		observe: func(ctx context.Context, _ *managerprocess.Manager, namespace string) {
			GinkgoHelper()
			c := environment.ControlPlane.Client
			Expect(c.Create(ctx, harness.NewFoo(namespace, "foo-01", "jack"))).To(Succeed())
			consistentlyNoStatus(ctx, namespace, "foo-01")
		},
	}

	// Without a watch an informer still lists, but then lists everything again after each
	// refused watch, with a back-off that grows to 30 s: a change is followed at the next
	// list, seconds late, instead of at once. The relists show in the log, a refusal each.
	watchRelisted = brokenBehaviour{
		what: "the manager follows no change as it happens: it lists everything again after each refused watch",
		observe: func(ctx context.Context, manager *managerprocess.Manager, _ string) {
			GinkgoHelper()
			Eventually(func() int {
				return len(regexp.MustCompile(`cannot watch resource`).FindAllStringIndex(manager.Logs(), -1))
			}).WithContext(ctx).WithTimeout(20*time.Second).Should(BeNumerically(">=", 3),
				"the refused watches the manager logged, one per list of everything")
		},
	}

	noEvents = brokenBehaviour{
		what: "a Foo that turns happy gets no Event saying so",
		observe: func(ctx context.Context, _ *managerprocess.Manager, namespace string) {
			GinkgoHelper()
			c := environment.ControlPlane.Client
			Expect(c.Create(ctx, harness.NewPod(namespace, "jack"))).To(Succeed())
			Expect(c.Create(ctx, harness.NewFoo(namespace, "foo-01", "jack"))).To(Succeed())
			expectHappy(ctx, namespace, "foo-01", true)
			Consistently(func() ([]string, error) {
				return eventReasons(ctx, namespace)
			}).WithContext(ctx).WithTimeout(quietPeriod).Should(BeEmpty(), "the Events of %s", namespace)
		},
	}

	repeatsNotCounted = brokenBehaviour{
		what: "a Foo that turns happy again for the same friend gets no count of 2 on its Event",
		observe: func(ctx context.Context, _ *managerprocess.Manager, namespace string) {
			GinkgoHelper()
			findJackTwice(ctx, namespace)
			Consistently(func() (int32, error) {
				return eventCount(ctx, namespace, tutorialv1.FriendFoundReason)
			}).WithContext(ctx).WithTimeout(quietPeriod).Should(Equal(int32(1)),
				"the count of the %s Event of foo-01, which found jack twice", tutorialv1.FriendFoundReason)
		},
	}

	neverLeads = brokenBehaviour{
		what: "the manager never leads: no Foo gets a status",
		observe: func(ctx context.Context, _ *managerprocess.Manager, namespace string) {
			GinkgoHelper()
			Expect(environment.ControlPlane.Client.Create(ctx, harness.NewFoo(namespace, "foo-01", "jack"))).To(Succeed())
			consistentlyNoStatus(ctx, namespace, "foo-01")
		},
	}

	leaseNeverMade = brokenBehaviour{
		what: "on a cluster where its Lease does not exist yet, the manager never leads: no Foo gets a status",
		observe: func(ctx context.Context, manager *managerprocess.Manager, namespace string) {
			GinkgoHelper()
			// The Lease of the managers before stays, released; the first install has none.
			lease := &coordinationv1.Lease{}
			lease.Namespace, lease.Name = harness.OperatorNamespace, harness.LeaderElectionLease
			c := environment.ControlPlane.Client
			Expect(client.IgnoreNotFound(c.Delete(ctx, lease))).To(Succeed())
			Expect(c.Create(ctx, harness.NewFoo(namespace, "foo-01", "jack"))).To(Succeed())
			consistentlyNoStatus(ctx, namespace, "foo-01")
			err := c.Get(ctx, client.ObjectKeyFromObject(lease), lease)
			Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the Lease, which the manager could not create: %v", err)
		},
	}

	// Without TokenReviews the manager cannot learn who a scraper's token is: controller-runtime's
	// filter answers 500 "Authentication failed". Exactly that, so that a handler that fails
	// for another reason does not pass for the missing permission.
	scrapeNotAuthenticated = scrapeRefused("the manager cannot authenticate it", "Authentication failed")
	// Without SubjectAccessReviews it cannot ask whether the scraper may read the metrics: 500
	// "Authorization for user <the reader> failed".
	scrapeNotAuthorized = scrapeRefused("the manager cannot authorize it", "Authorization for user system:serviceaccount:")
)

// scrapeRefused is the behaviour of a scrape by a token bound to metrics-reader that the
// manager answers, for quietPeriod, with HTTP 500 and a body that starts with bodyPrefix.
func scrapeRefused(why, bodyPrefix string) brokenBehaviour {
	return brokenBehaviour{
		what: "a scrape of the metrics by a token bound to metrics-reader is refused: " + why,
		observe: func(ctx context.Context, manager *managerprocess.Manager, _ string) {
			GinkgoHelper()
			token := metricsReaderToken(ctx, harness.MetricsReaderRole)
			Consistently(func() string {
				status, body := scrape(ctx, manager, token)
				return fmt.Sprintf("HTTP %d: %s", status, body)
			}).WithContext(ctx).WithTimeout(quietPeriod).Should(HavePrefix("HTTP 500: "+bodyPrefix), "the answer to a scrape with a reader's token")
		},
	}
}

// consistentlyNoStatus checks that the Foo namespace/name gets no status for quietPeriod.
func consistentlyNoStatus(ctx context.Context, namespace, name string) {
	GinkgoHelper()
	Consistently(func() (tutorialv1.FooStatus, error) {
		foo := &tutorialv1.Foo{}
		err := environment.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, foo)
		return foo.Status, err
	}).WithContext(ctx).WithTimeout(quietPeriod).Should(BeZero(), "the status of Foo %s/%s", namespace, name)
}

// expectHappy waits until the operator has written the Foo's status (suite.ExpectFooStatus).
func expectHappy(ctx context.Context, namespace, name string, happy bool) {
	GinkgoHelper()
	suite.ExpectFooStatus(ctx, environment.ControlPlane.Client, client.ObjectKey{Namespace: namespace, Name: name}, suite.FooStatus{Happy: happy})
}

// eventReasons lists the reasons of the Events in namespace.
func eventReasons(ctx context.Context, namespace string) ([]string, error) {
	var events corev1.EventList
	if err := environment.ControlPlane.Client.List(ctx, &events, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	reasons := make([]string, 0, len(events.Items))
	for _, event := range events.Items {
		reasons = append(reasons, event.Reason)
	}
	return reasons, nil
}

// eventCount is the count of the Event with reason in namespace (0 if there is none); an
// error if there are several.
func eventCount(ctx context.Context, namespace, reason string) (int32, error) {
	var events corev1.EventList
	if err := environment.ControlPlane.Client.List(ctx, &events, client.InNamespace(namespace)); err != nil {
		return 0, err
	}
	var counts []int32
	for _, event := range events.Items {
		if event.Reason == reason {
			counts = append(counts, event.Count)
		}
	}
	switch len(counts) {
	case 0:
		return 0, nil
	case 1:
		return counts[0], nil
	default:
		return 0, fmt.Errorf("%d Events of reason %s in %s, with counts %v", len(counts), reason, namespace, counts)
	}
}

// findJackTwice makes Foo foo-01 of namespace find its friend jack, lose him, and find him
// again: two transitions the same in all (reason, message), whose Event is counted.
func findJackTwice(ctx context.Context, namespace string) {
	GinkgoHelper()
	c := environment.ControlPlane.Client
	Expect(c.Create(ctx, harness.NewFoo(namespace, "foo-01", "jack"))).To(Succeed())
	for range 2 {
		jack := harness.NewPod(namespace, "jack")
		Expect(c.Create(ctx, jack)).To(Succeed())
		expectHappy(ctx, namespace, "foo-01", true)
		Expect(c.Delete(ctx, jack)).To(Succeed())
		expectHappy(ctx, namespace, "foo-01", false)
	}
}
