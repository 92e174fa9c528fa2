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
	objects := map[string]sets.Set[string]{}
	err := listEveryKind(ctx, config, metav1.ListOptions{}, func(resource metav1.APIResource) bool {
		return !resource.Namespaced && !madeByTheCluster.Has(resource.Name)
	}, func(kind string, items []metav1.PartialObjectMetadata) {
		objects[kind] = sets.New[string]()
		for _, item := range items {
			objects[kind].Insert(item.Name)
		}
	})
	return objects, err
}

// LabelledObjects names ("kind namespace/name", or "kind name" for a cluster-scoped one) every
// object of every kind the cluster lists, in every namespace, that selector selects: what a
// tool that labels what it makes left, of whatever kind.
func LabelledObjects(ctx context.Context, config *rest.Config, selector string) ([]string, error) {
	var names []string
	err := listEveryKind(ctx, config, metav1.ListOptions{LabelSelector: selector}, func(metav1.APIResource) bool { return true },
		func(kind string, items []metav1.PartialObjectMetadata) {
			for _, item := range items {
				names = append(names, strings.TrimSuffix(kind+" "+item.Namespace, " ")+"/"+item.Name)
			}
		})
	slices.Sort(names)
	return names, err
}

// listEveryKind lists, with options, the objects of every kind the cluster can list that
// include accepts, and hands each kind's ("resource.group") to each. A kind whose list fails
// is left out, so not compared: an aggregated API away, say.
func listEveryKind(ctx context.Context, config *rest.Config, options metav1.ListOptions, include func(metav1.APIResource) bool,
	each func(kind string, items []metav1.PartialObjectMetadata)) error {
	discoveryClient, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return err
	}
	lists, err := discoveryClient.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return fmt.Errorf("discovering the cluster's resources: %w", err)
	}
	metadataClient, err := metadata.NewForConfig(config)
	if err != nil {
		return err
	}
	for _, list := range lists {
		groupVersion, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return err
		}
		for _, resource := range list.APIResources {
			if !slices.Contains(resource.Verbs, "list") || !include(resource) {
				continue
			}
			items, err := metadataClient.Resource(groupVersion.WithResource(resource.Name)).List(ctx, options)
			if err != nil {
				continue
			}
			each(strings.TrimSuffix(resource.Name+"."+groupVersion.Group, "."), items.Items)
		}
	}
	return nil
}

// madeByTheCluster are the cluster-scoped resources whose objects the cluster's own
// components make and remove as they run, whatever a suite does.
var madeByTheCluster = sets.New("nodes", "certificatesigningrequests", "componentstatuses")
