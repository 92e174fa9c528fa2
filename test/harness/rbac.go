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
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Permission is one verb on one resource (or non-resource URL) of one API group; with
// ResourceName, on the object of that name only.
type Permission struct{ Group, Resource, ResourceName, Verb string }

func (p Permission) String() string {
	if p.ResourceName != "" {
		return fmt.Sprintf("%s %s.%s named %s", p.Verb, p.Resource, p.Group, p.ResourceName)
	}
	return fmt.Sprintf("%s %s.%s", p.Verb, p.Resource, p.Group)
}

// Permissions flattens RBAC rules into the single permissions they grant.
func Permissions(rules []rbacv1.PolicyRule) sets.Set[Permission] {
	granted := sets.New[Permission]()
	for _, rule := range rules {
		names := rule.ResourceNames
		if len(names) == 0 {
			names = []string{""}
		}
		for _, verb := range rule.Verbs {
			for _, url := range rule.NonResourceURLs {
				granted.Insert(Permission{Resource: url, Verb: verb})
			}
			for _, group := range rule.APIGroups {
				for _, resource := range rule.Resources {
					for _, name := range names {
						granted.Insert(Permission{Group: group, Resource: resource, ResourceName: name, Verb: verb})
					}
				}
			}
		}
	}
	return granted
}

// The permissions the operator's code uses, each with the code that needs it. They are the
// measure of every grant the suites check: config/rbac as rendered, and what OLM grants the
// operator's ServiceAccount from the CSV in each install mode. A rule added to config/rbac
// without a use in the code fails those checks, and so does one the code no longer needs
// once it is taken out of these lists; test/security takes each away from the running
// manager and sees what breaks.
var (
	// ControllerPermissions are the controller's, in every namespace it watches. It reads
	// Foos and pods from its informers' caches only, never with a get of its own.
	ControllerPermissions = []Permission{
		// The Foo informer (For).
		{Group: "tutorial.my.domain", Resource: "foos", Verb: "list"}, {Group: "tutorial.my.domain", Resource: "foos", Verb: "watch"},
		// patchStatus writes the status subresource with a merge patch, nothing else.
		{Group: "tutorial.my.domain", Resource: "foos/status", Verb: "patch"},
		// The metadata-only pod informer (WatchesMetadata).
		{Resource: "pods", Verb: "list"}, {Resource: "pods", Verb: "watch"},
		// The Recorder from mgr.GetEventRecorderFor writes core/v1 Events, and patches
		// them to count repeats; the leader election records who became leader with it too.
		{Resource: "events", Verb: "create"}, {Resource: "events", Verb: "patch"},
	}

	// LeaderElectionPermissions are the leader election's, in the operator's namespace:
	// client-go's Lease lock gets its Lease by name, creates it when there is none, and
	// updates it to renew, take over and release. A create cannot be limited to a name: the
	// apiserver authorizes it before the name is known.
	LeaderElectionPermissions = []Permission{
		{Group: "coordination.k8s.io", Resource: "leases", ResourceName: LeaderElectionLease, Verb: "get"},
		{Group: "coordination.k8s.io", Resource: "leases", ResourceName: LeaderElectionLease, Verb: "update"},
		{Group: "coordination.k8s.io", Resource: "leases", Verb: "create"},
	}

	// MetricsAuthPermissions are the secure metrics endpoint's, to check its callers: the
	// reviews are cluster-scoped.
	MetricsAuthPermissions = []Permission{
		{Group: "authentication.k8s.io", Resource: "tokenreviews", Verb: "create"},
		{Group: "authorization.k8s.io", Resource: "subjectaccessreviews", Verb: "create"},
	}

	// MetricsReaderPermissions are what a scraper of the metrics needs.
	MetricsReaderPermissions = []Permission{
		{Resource: "/metrics", Verb: "get"},
	}
)
