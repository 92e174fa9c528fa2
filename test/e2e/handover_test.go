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
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// What an upgrade looks like from the operator's side while OLM hands one release over to
// the next: which manager pods ran when, what they logged, and when OLM's bindings for the
// new release appeared. The old pod is gone when the upgrade is over, and its log with it,
// so everything is recorded as it happens.

// handoverPollInterval is how often the pods and bindings are looked at: the precision of
// the times the handover reports.
const handoverPollInterval = 250 * time.Millisecond

// handover records an upgrade of the operator in a namespace as it happens.
type handover struct {
	namespace, csv string
	cancel         context.CancelFunc
	done           sync.WaitGroup

	// logs follows the manager pods and their logs.
	logs *podLogs

	mu sync.Mutex
	// bindingsSeen holds when each binding OLM made for csv was first seen, by kind/namespace/name.
	bindingsSeen map[string]time.Time
	// requests are what the manager asks the apiserver for while it reconciles the watched
	// namespace; authorized holds, at each look, whether the apiserver's authorizer allows
	// them all to the operator's ServiceAccount. A binding takes effect only once the
	// authorizer's own cache has it, a moment after it exists.
	requests   []authorizationv1.ResourceAttributes
	authorized []authorizedAt
}

// authorizedAt is whether the manager's requests were all allowed, and when that was asked.
type authorizedAt struct {
	at      time.Time
	allowed bool
}

// recordHandover starts recording the manager pods of namespace, their logs, the bindings
// OLM makes for the CSV csv, and whether the apiserver authorizes the operator's
// ServiceAccount to reconcile the Foos of watchedNamespace, until stop.
func recordHandover(ctx context.Context, namespace, csv, watchedNamespace string) *handover {
	ctx, cancel := context.WithCancel(ctx)
	h := &handover{namespace: namespace, csv: csv, cancel: cancel, logs: newPodLogs(namespace), bindingsSeen: map[string]time.Time{},
		requests: []authorizationv1.ResourceAttributes{
			{Namespace: watchedNamespace, Verb: "patch", Group: tutorialv1.GroupVersion.Group, Resource: "foos", Subresource: "status"},
			{Namespace: watchedNamespace, Verb: "create", Resource: "events"},
			{Verb: "list", Resource: "pods"},
			{Verb: "watch", Resource: "pods"},
			{Verb: "list", Group: tutorialv1.GroupVersion.Group, Resource: "foos"},
		}}
	h.done.Go(func() {
		ticker := time.NewTicker(handoverPollInterval)
		defer ticker.Stop()
		for ctx.Err() == nil {
			h.logs.lookAtPods(ctx)
			h.lookAtBindings(ctx)
			h.lookAtAuthorization(ctx)
			select {
			case <-ctx.Done():
			case <-ticker.C:
			}
		}
	})
	DeferCleanup(h.stop)
	return h
}

// stop ends the recording.
func (h *handover) stop() {
	h.cancel()
	h.done.Wait()
	h.logs.following.Wait()
}

// lookAtBindings notes the bindings OLM made for the CSV that exist now.
func (h *handover) lookAtBindings(ctx context.Context) {
	ownedByCSV := client.MatchingLabels{"olm.owner": h.csv, "olm.owner.namespace": h.namespace}
	var roleBindings rbacv1.RoleBindingList
	var clusterRoleBindings rbacv1.ClusterRoleBindingList
	if k8sClient.List(ctx, &roleBindings, ownedByCSV) != nil || k8sClient.List(ctx, &clusterRoleBindings, ownedByCSV) != nil {
		return
	}
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, binding := range roleBindings.Items {
		if key := "RoleBinding/" + binding.Namespace + "/" + binding.Name; h.bindingsSeen[key].IsZero() {
			h.bindingsSeen[key] = now
		}
	}
	for _, binding := range clusterRoleBindings.Items {
		if key := "ClusterRoleBinding/" + binding.Name; h.bindingsSeen[key].IsZero() {
			h.bindingsSeen[key] = now
		}
	}
}

// lookAtAuthorization notes whether the apiserver allows the operator's ServiceAccount every
// request the manager makes, now.
func (h *handover) lookAtAuthorization(ctx context.Context) {
	user := serviceaccount.MakeUsername(h.namespace, operatorServiceAccount)
	allowed := true
	for _, request := range h.requests {
		allowedThis, err := serviceAccountAllowed(ctx, user, request)
		if err != nil {
			return // not known at this look
		}
		if !allowedThis {
			allowed = false
			break // one denied request is the answer; the others need not be asked
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.authorized = append(h.authorized, authorizedAt{at: time.Now(), allowed: allowed})
}

// authorizedFrom is when, at or after since, the apiserver began to allow the operator's
// ServiceAccount every request the manager makes, and kept allowing them until the end of
// the recording; false if it never did.
func (h *handover) authorizedFrom(since time.Time) (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var from time.Time
	for _, look := range h.authorized {
		switch {
		case look.at.Before(since):
		case !look.allowed:
			from = time.Time{}
		case from.IsZero():
			from = look.at
		}
	}
	return from, !from.IsZero()
}

// bindingsComplete is when the last of the bindings OLM made for the CSV was first seen,
// and the bindings, each with the time it was first seen.
func (h *handover) bindingsComplete() (time.Time, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var complete time.Time
	seen := make([]string, 0, len(h.bindingsSeen))
	for key, at := range h.bindingsSeen {
		if at.After(complete) {
			complete = at
		}
		seen = append(seen, fmt.Sprintf("%s at %s", key, at.Format(time.StampMilli)))
	}
	sort.Strings(seen)
	return complete, seen
}

// overlapped tells whether a pod running oldImage and one running newImage were seen
// running at the same time.
func (h *handover) overlapped(oldImage, newImage string) bool {
	h.logs.mu.Lock()
	defer h.logs.mu.Unlock()
	for _, old := range h.logs.pods {
		for _, next := range h.logs.pods {
			if old.image != oldImage || next.image != newImage || old.firstRunning.IsZero() || next.firstRunning.IsZero() {
				continue
			}
			if !next.firstRunning.After(old.lastRunning) && !old.firstRunning.After(next.lastRunning) {
				return true
			}
		}
	}
	return false
}

// podsSeen describes the manager pods seen: image, and when they were first and last seen running.
func (h *handover) podsSeen() string {
	h.logs.mu.Lock()
	defer h.logs.mu.Unlock()
	described := make([]string, 0, len(h.logs.pods))
	for name, pod := range h.logs.pods {
		described = append(described, fmt.Sprintf("%s (%s) running from %s to %s, %d log lines", name, pod.image,
			pod.firstRunning.Format(time.StampMilli), pod.lastRunning.Format(time.StampMilli), len(pod.lines)))
	}
	sort.Strings(described)
	return strings.Join(described, "; ")
}

// denials are the requests the manager pods logged as denied, and why the logs cannot vouch
// for that (podLogs.denials).
func (h *handover) denials() (denials []denial, problems []string) {
	return h.logs.denials(false)
}
