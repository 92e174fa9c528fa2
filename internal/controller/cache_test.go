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

package controller

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
)

func TestKeepPodIdentity(t *testing.T) {
	g := NewWithT(t)
	deleting := metav1.Now()
	pod := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "jack", UID: "uid-1", ResourceVersion: "7", DeletionTimestamp: &deleting,
		Labels:          map[string]string{"app": "jack"},
		Annotations:     map[string]string{"big": "annotation"},
		OwnerReferences: []metav1.OwnerReference{{Name: "owner"}},
		Finalizers:      []string{"hold"},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
	}}

	out, err := keepPodIdentity(pod)

	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(Equal(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "jack", UID: "uid-1", ResourceVersion: "7", DeletionTimestamp: &deleting,
	}}))

	tombstone := toolscache.DeletedFinalStateUnknown{Key: "ns/jack"}
	out, err = keepPodIdentity(tombstone)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(Equal(tombstone), "what is not an object passes unchanged")
}

func TestCacheOptionsNamespaces(t *testing.T) {
	g := NewWithT(t)
	g.Expect(CacheOptions(nil).DefaultNamespaces).To(BeEmpty(), "no namespaces: the whole cluster")
	g.Expect(CacheOptions([]string{"team-a", "team-b"}).DefaultNamespaces).To(HaveLen(2))
	g.Expect(CacheOptions([]string{"team-a", "team-b"}).DefaultNamespaces).To(HaveKey("team-b"))
}
