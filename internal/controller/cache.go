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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CacheOptions returns the cache settings the Foo controller is built for. namespaces
// limits every watch to those namespaces; none means the whole cluster.
//
// The controller reads pods only through metadata-only watches, and of a pod's metadata
// only its name and deletion timestamp matter; dropping the rest keeps the memory per
// pod small on clusters with many pods. No object's managedFields are ever read.
func CacheOptions(namespaces []string) cache.Options {
	opts := cache.Options{
		// Reads of a kind nothing watches fail instead of quietly starting a new informer,
		// so that a stray read of full Pods cannot fill memory with a cluster's pods.
		ReaderFailOnMissingInformer: true,
		DefaultTransform:            cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Pod{}: {Transform: keepPodIdentity},
		},
	}
	if len(namespaces) > 0 {
		opts.DefaultNamespaces = make(map[string]cache.Config, len(namespaces))
		for _, namespace := range namespaces {
			opts.DefaultNamespaces[namespace] = cache.Config{}
		}
	}
	return opts
}

// keepPodIdentity strips a cached pod's metadata down to what identifies it and tells
// whether it is terminating. Anything that is not an object (such as a tombstone) passes as is.
func keepPodIdentity(in any) (any, error) {
	obj, err := meta.Accessor(in)
	if err != nil {
		return in, nil
	}
	obj.SetLabels(nil)
	obj.SetAnnotations(nil)
	obj.SetOwnerReferences(nil)
	obj.SetFinalizers(nil)
	obj.SetManagedFields(nil)
	return in, nil
}
