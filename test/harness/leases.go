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

package harness

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	authnuser "k8s.io/apiserver/pkg/authentication/user"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// LeaseHolder is who holds the operator's leader election Lease in namespace now: empty if
// no one does (released). A Lease that does not exist is an error, not a release: a check
// that the Lease was released cannot pass where there never was one.
func LeaseHolder(ctx context.Context, c client.Client, namespace string) (string, error) {
	lease := &coordinationv1.Lease{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: LeaderElectionLease}, lease); err != nil {
		return "", fmt.Errorf("reading the operator's Lease %s/%s: %w", namespace, LeaderElectionLease, err)
	}
	if lease.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *lease.Spec.HolderIdentity, nil
}

// LeaseAccess is one question about the operator's rights on Leases, and the answer its
// leader election needs: Allowed for what it does, not for what it must not do.
type LeaseAccess struct {
	Namespace, Name, Verb string
	Allowed               bool
}

func (a LeaseAccess) String() string {
	name := a.Name
	if name == "" {
		name = "(any name)"
	}
	return fmt.Sprintf("%s lease %s/%s", a.Verb, a.Namespace, name)
}

// LeaseAccesses are the questions that tell whether the operator's ServiceAccount, whose
// manager runs in namespace, is confined to its own Lease: it may get, create and update its
// Lease there, and it may neither update nor delete another one: the cluster's own Leases in
// kube-system (the control plane's) and kube-node-lease (the nodes' heartbeats), nor another
// of its own namespace; nor delete its own. Each Lease asked about is one that exists
// (listed with c), where there is one.
func LeaseAccesses(ctx context.Context, c client.Client, namespace string) ([]LeaseAccess, error) {
	accesses := []LeaseAccess{
		{Namespace: namespace, Name: LeaderElectionLease, Verb: "get", Allowed: true},
		{Namespace: namespace, Name: LeaderElectionLease, Verb: "update", Allowed: true},
		{Namespace: namespace, Verb: "create", Allowed: true},
		{Namespace: namespace, Name: LeaderElectionLease, Verb: "delete"},
		{Namespace: namespace, Name: "another-lease", Verb: "update"},
		{Namespace: namespace, Verb: "list"},
	}
	for _, system := range []string{"kube-system", "kube-node-lease"} {
		var leases coordinationv1.LeaseList
		if err := c.List(ctx, &leases, client.InNamespace(system)); err != nil {
			return nil, fmt.Errorf("listing the Leases of %s: %w", system, err)
		}
		name := "a-lease"
		if len(leases.Items) > 0 {
			name = leases.Items[0].Name
		}
		accesses = append(accesses,
			LeaseAccess{Namespace: system, Name: name, Verb: "update"}, LeaseAccess{Namespace: system, Name: name, Verb: "delete"})
	}
	return accesses, nil
}

// LeaseConfinementViolations asks the apiserver with a SubjectAccessReview, for each of
// LeaseAccesses, whether the operator's ServiceAccount serviceAccount in namespace may do it,
// and returns every answer that is not the one its leader election needs.
func LeaseConfinementViolations(ctx context.Context, c client.Client, namespace, serviceAccount string) ([]string, error) {
	accesses, err := LeaseAccesses(ctx, c, namespace)
	if err != nil {
		return nil, err
	}
	var violations []string
	for _, access := range accesses {
		allowed, err := ServiceAccountAllowed(ctx, c, namespace, serviceAccount, authorizationv1.ResourceAttributes{
			Namespace: access.Namespace, Name: access.Name, Verb: access.Verb, Group: "coordination.k8s.io", Resource: "leases",
		})
		if err != nil {
			return nil, err
		}
		switch {
		case allowed && !access.Allowed:
			violations = append(violations, "may "+access.String())
		case !allowed && access.Allowed:
			violations = append(violations, "may not "+access.String())
		}
	}
	return violations, nil
}

// ServiceAccountAllowed asks the apiserver with a SubjectAccessReview whether ServiceAccount
// namespace/name, as its token authenticates it, may make request.
func ServiceAccountAllowed(ctx context.Context, c client.Client, namespace, name string, request authorizationv1.ResourceAttributes) (bool, error) {
	review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               serviceaccount.MakeUsername(namespace, name),
		Groups:             append(serviceaccount.MakeGroupNames(namespace), authnuser.AllAuthenticated),
		ResourceAttributes: &request,
	}}
	if err := c.Create(ctx, review); err != nil {
		return false, fmt.Errorf("asking whether %s may %s %s: %w", review.Spec.User, request.Verb, request.Resource, err)
	}
	return review.Status.Allowed, nil
}
