//go:build e2e

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

package e2e

import (
	"context"
	"fmt"
	"sort"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/test/harness"
)

// clusterScope is the scope of a grant by a ClusterRoleBinding, in a map of grants by
// namespace.
const clusterScope = "(cluster)"

// grantsByScope maps a scope (a namespace, or clusterScope) to permissions there.
type grantsByScope map[string]sets.Set[harness.Permission]

func (g grantsByScope) add(scope string, permissions sets.Set[harness.Permission]) {
	if g[scope] == nil {
		g[scope] = sets.New[harness.Permission]()
	}
	g[scope] = g[scope].Union(permissions)
}

// differences lists, scope by scope, what granted has beyond g and what it lacks of g.
func (g grantsByScope) differences(granted grantsByScope) []string {
	scopes := sets.KeySet(g).Union(sets.KeySet(granted))
	var out []string
	for _, scope := range sets.List(scopes) {
		want, have := g[scope], granted[scope]
		if extra := sorted(have.Difference(want)); len(extra) > 0 {
			out = append(out, fmt.Sprintf("%s: granted beyond what the code uses: %v", scope, extra))
		}
		if missing := sorted(want.Difference(have)); len(missing) > 0 {
			out = append(out, fmt.Sprintf("%s: used by the code but not granted: %v", scope, missing))
		}
	}
	return out
}

// sorted lists permissions in order, for messages.
func sorted(permissions sets.Set[harness.Permission]) []string {
	out := make([]string, 0, permissions.Len())
	for permission := range permissions {
		out = append(out, permission.String())
	}
	sort.Strings(out)
	return out
}

// grantedToOperator reads what the bindings of the cluster grant the operator's ServiceAccount
// in namespace: the rules of the Roles and ClusterRoles they refer to, by scope. It reads
// every binding, not only those OLM labels as its own, so that a grant from elsewhere counts.
func grantedToOperator(ctx context.Context, namespace string) (grantsByScope, error) {
	isOperator := func(subjects []rbacv1.Subject) bool {
		for _, subject := range subjects {
			if subject.Kind == rbacv1.ServiceAccountKind && subject.Name == operatorServiceAccount && subject.Namespace == namespace {
				return true
			}
		}
		return false
	}
	rulesOf := func(roleNamespace string, ref rbacv1.RoleRef) ([]rbacv1.PolicyRule, error) {
		if ref.Kind == "ClusterRole" {
			var role rbacv1.ClusterRole
			err := k8sClient.Get(ctx, client.ObjectKey{Name: ref.Name}, &role)
			return role.Rules, err
		}
		var role rbacv1.Role
		err := k8sClient.Get(ctx, client.ObjectKey{Namespace: roleNamespace, Name: ref.Name}, &role)
		return role.Rules, err
	}
	granted := grantsByScope{}
	var clusterBindings rbacv1.ClusterRoleBindingList
	if err := k8sClient.List(ctx, &clusterBindings); err != nil {
		return nil, err
	}
	for _, binding := range clusterBindings.Items {
		if !isOperator(binding.Subjects) {
			continue
		}
		rules, err := rulesOf("", binding.RoleRef)
		if err != nil {
			return nil, fmt.Errorf("ClusterRoleBinding %s: %w", binding.Name, err)
		}
		granted.add(clusterScope, harness.Permissions(rules))
	}
	var bindings rbacv1.RoleBindingList
	if err := k8sClient.List(ctx, &bindings); err != nil {
		return nil, err
	}
	for _, binding := range bindings.Items {
		if !isOperator(binding.Subjects) {
			continue
		}
		rules, err := rulesOf(binding.Namespace, binding.RoleRef)
		if err != nil {
			return nil, fmt.Errorf("RoleBinding %s/%s: %w", binding.Namespace, binding.Name, err)
		}
		granted.add(binding.Namespace, harness.Permissions(rules))
	}
	return granted, nil
}

// olmAllNamespacesRules are what OLM v0 adds of its own to the cluster-scoped copy of the
// CSV's namespaced permissions, for an operator of all namespaces (measured on v0.46.0); the
// operator never reads a Namespace.
var olmAllNamespacesRules = []harness.Permission{
	{Resource: "namespaces", Verb: "get"}, {Resource: "namespaces", Verb: "list"}, {Resource: "namespaces", Verb: "watch"},
}

// expectGrantedWhatTheCodeUses checks what OLM v0 granted the operator installed in namespace,
// watching targets (none: all namespaces), against the permissions the code uses
// (harness): the CSV's namespaced permissions in the operator's namespace and in each target,
// and its cluster permissions at cluster scope; for all namespaces, OLM's OperatorGroup
// controller grants the namespaced ones at cluster scope as well, with olmAllNamespacesRules.
// Nothing more, nothing less, nowhere else. It waits, since OLM copies the grants to the targets after the CSV succeeds.
func expectGrantedWhatTheCodeUses(ctx context.Context, namespace string, targets ...string) {
	GinkgoHelper()
	namespaced := sets.New(harness.ControllerPermissions...).Insert(harness.LeaderElectionPermissions...)
	want := grantsByScope{}
	want.add(clusterScope, sets.New(harness.MetricsAuthPermissions...))
	want.add(namespace, namespaced)
	if len(targets) == 0 {
		want.add(clusterScope, namespaced)
		want.add(clusterScope, sets.New(olmAllNamespacesRules...))
	}
	for _, target := range targets {
		want.add(target, namespaced)
	}
	Eventually(func() ([]string, error) {
		granted, err := grantedToOperator(ctx, namespace)
		if err != nil {
			return nil, err
		}
		return want.differences(granted), nil
	}).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(BeEmpty(),
		"what the bindings grant the operator's ServiceAccount %s/%s, by scope", namespace, operatorServiceAccount)
}

// expectLeasesConfined checks with SubjectAccessReviews, as the apiserver decides them, that
// what the operator installed in namespace was granted confines its leader election to its
// own Lease (harness.LeaseAccesses): it may neither update nor delete the cluster's Leases.
// It waits, since OLM copies the grants to cluster scope after the CSV succeeds.
func expectLeasesConfined(ctx context.Context, namespace string) {
	GinkgoHelper()
	Eventually(func() ([]string, error) {
		return harness.LeaseConfinementViolations(ctx, k8sClient, namespace, operatorServiceAccount)
	}).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(BeEmpty(),
		"what the operator's ServiceAccount %s/%s may do with Leases, beside what its leader election needs", namespace, operatorServiceAccount)
}
