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

package suite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// leftAsFoundTimeout is how long the suite's end waits for what it deleted to be gone
// (namespaces finalize their contents first).
const leftAsFoundTimeout = 3 * time.Minute

// ExpectClusterLeftAsFound records the cluster-scoped objects of every kind that can be
// listed (namespaces among them) and, when the suite ends, fails naming each one the suite
// made and left: a suite given a cluster it did not start (USE_EXISTING_CLUSTER=true) leaves
// it as it found it. Call it in BeforeSuite once the cluster answers; its check runs before
// the cleanups registered earlier.
func ExpectClusterLeftAsFound(ctx context.Context, config *rest.Config) {
	GinkgoHelper()
	found, err := clusterScopedObjects(ctx, config)
	Expect(err).NotTo(HaveOccurred(), "listing the cluster's cluster-scoped objects as the suite found them")
	DeferCleanup(func(ctx context.Context) {
		By("checking that the cluster is left as the suite found it")
		Eventually(func() ([]string, error) {
			now, err := clusterScopedObjects(ctx, config)
			var left []string
			// A kind whose API did not answer at the start (an aggregated API, say) is not
			// compared: nothing is known of what it held then.
			for kind, before := range found {
				names, ok := now[kind]
				if !ok {
					left = append(left, kind+": its API does not answer a list")
					continue
				}
				for _, name := range sets.List(names.Difference(before)) {
					left = append(left, kind+"/"+name)
				}
			}
			slices.Sort(left)
			return left, err
		}).WithContext(ctx).WithTimeout(leftAsFoundTimeout).Should(BeEmpty(),
			"the objects the suite made and left on a cluster it did not start (kind/name)")
	}, NodeTimeout(leftAsFoundTimeout+30*time.Second))
}

// clusterScopedObjects names, by kind ("resource.group"), every cluster-scoped object of the kinds
// the cluster lists, but those the cluster makes and removes on its own (events of nodes,
// the certificate requests of kubelets) and reviews, which are never stored.
func clusterScopedObjects(ctx context.Context, config *rest.Config) (map[string]sets.Set[string], error) {
	discoveryClient, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, err
	}
	lists, err := discoveryClient.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return nil, fmt.Errorf("discovering the cluster's resources: %w", err)
	}
	metadataClient, err := metadata.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	objects := map[string]sets.Set[string]{}
	for _, list := range lists {
		groupVersion, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, resource := range list.APIResources {
			if resource.Namespaced || !slices.Contains(resource.Verbs, "list") || madeByTheCluster.Has(resource.Name) {
				continue
			}
			gvr := groupVersion.WithResource(resource.Name)
			items, err := metadataClient.Resource(gvr).List(ctx, metav1.ListOptions{})
			if err != nil {
				// Left out, and so not compared, if it fails at the start; at the end the
				// check asks again until it answers.
				continue
			}
			kind := strings.TrimSuffix(resource.Name+"."+groupVersion.Group, ".")
			objects[kind] = sets.New[string]()
			for _, item := range items.Items {
				objects[kind].Insert(item.Name)
			}
		}
	}
	return objects, nil
}

// madeByTheCluster are the cluster-scoped resources whose objects the cluster's own
// components make and remove as they run, whatever a suite does.
var madeByTheCluster = sets.New("nodes", "certificatesigningrequests", "componentstatuses")
