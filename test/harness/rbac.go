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

// Permission is one verb on one resource (or non-resource URL) of one API group.
type Permission struct{ Group, Resource, Verb string }

func (p Permission) String() string { return fmt.Sprintf("%s %s.%s", p.Verb, p.Resource, p.Group) }

// Permissions flattens RBAC rules into the single permissions they grant.
func Permissions(rules []rbacv1.PolicyRule) sets.Set[Permission] {
	granted := sets.New[Permission]()
	for _, rule := range rules {
		for _, verb := range rule.Verbs {
			for _, url := range rule.NonResourceURLs {
				granted.Insert(Permission{Resource: url, Verb: verb})
			}
			for _, group := range rule.APIGroups {
				for _, resource := range rule.Resources {
					granted.Insert(Permission{Group: group, Resource: resource, Verb: verb})
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
// once it is taken out of these lists.
var (
	// ControllerPermissions are the controller's, in every namespace it watches.
	ControllerPermissions = []Permission{
		// The Foo informer (For) and the reads of Reconcile.
		{"tutorial.my.domain", "foos", "get"}, {"tutorial.my.domain", "foos", "list"}, {"tutorial.my.domain", "foos", "watch"},
		// patchStatus writes the status subresource with a merge patch, nothing else.
		{"tutorial.my.domain", "foos/status", "get"}, {"tutorial.my.domain", "foos/status", "patch"},
		// The metadata-only pod informer (WatchesMetadata) and findFriend.
		{"", "pods", "get"}, {"", "pods", "list"}, {"", "pods", "watch"},
		// The Recorder from mgr.GetEventRecorderFor writes core/v1 Events, and patches
		// them to count repeats.
		{"", "events", "create"}, {"", "events", "patch"},
	}

	// LeaderElectionPermissions are the leader election's, in the operator's namespace.
	LeaderElectionPermissions = []Permission{
		// client-go's lease lock gets, creates and updates the Lease; controller-runtime
		// documents list, watch, patch and delete as part of the same grant.
		{"coordination.k8s.io", "leases", "get"}, {"coordination.k8s.io", "leases", "list"},
		{"coordination.k8s.io", "leases", "watch"}, {"coordination.k8s.io", "leases", "create"},
		{"coordination.k8s.io", "leases", "update"}, {"coordination.k8s.io", "leases", "patch"},
		{"coordination.k8s.io", "leases", "delete"},
		// The leader elector records who became leader with a core/v1 Event.
		{"", "events", "create"}, {"", "events", "patch"},
	}

	// MetricsAuthPermissions are the secure metrics endpoint's, to check its callers: the
	// reviews are cluster-scoped.
	MetricsAuthPermissions = []Permission{
		{"authentication.k8s.io", "tokenreviews", "create"},
		{"authorization.k8s.io", "subjectaccessreviews", "create"},
	}

	// MetricsReaderPermissions are what a scraper of the metrics needs.
	MetricsReaderPermissions = []Permission{
		{"", "/metrics", "get"},
	}
)
