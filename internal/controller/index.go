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
	"context"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// friendNameField indexes Foos by spec.name. The cache keys every index by namespace as
// well, so a lookup with client.InNamespace finds the Foos of one namespace that name a pod.
const friendNameField = "spec.name"

// friendName is the index function behind friendNameField.
func friendName(obj client.Object) []string {
	foo, ok := obj.(*tutorialv1.Foo)
	if !ok || foo.Spec.Name == "" {
		return nil
	}
	return []string{foo.Spec.Name}
}

// foosNamingPod maps a pod event to the Foos in the pod's namespace whose spec.name is
// the pod's name, by an index lookup: its cost does not grow with the number of pods or Foos.
func foosNamingPod(reader client.Reader) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, pod client.Object) []reconcile.Request {
		var foos tutorialv1.FooList
		// Only names are read from the result, so the cached objects need not be copied.
		if err := reader.List(ctx, &foos,
			client.InNamespace(pod.GetNamespace()),
			client.MatchingFields{friendNameField: pod.GetName()},
			client.UnsafeDisableDeepCopy,
		); err != nil {
			logf.FromContext(ctx).Error(err, "Failed to look up the Foos that name a pod", "pod", klog.KObj(pod))
			return nil
		}

		requests := make([]reconcile.Request, 0, len(foos.Items))
		for i := range foos.Items {
			requests = append(requests, reconcile.Request{NamespacedName: types.NamespacedName{
				Namespace: foos.Items[i].Namespace,
				Name:      foos.Items[i].Name,
			}})
		}
		if len(requests) > 0 {
			// The moment a pod event reached the controller: the benchmark's breakdown of
			// its slowest events starts here.
			logf.FromContext(ctx).V(2).Info(LogPodEvent, "pod", klog.KObj(pod), "foos", len(requests))
		}
		return requests
	}
}
