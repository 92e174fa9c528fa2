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

// Package fooapi serves the Foo kind under an API group of the benchmark's choosing. Each
// implementation the benchmark compares gets Foos of its own kind on one apiserver, so that
// all of them can run at once, against the same pods, without writing each other's Foos.
package fooapi

import (
	"fmt"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// LogFloorListed is the message the floor logs once it has listed every pod and Foo at start:
// the moment the benchmark compares with ours' caches synced.
const LogFloorListed = "Listed pods and Foos"

// GroupVersion is the version of the Foo kind, in group.
func GroupVersion(group string) schema.GroupVersion {
	return schema.GroupVersion{Group: group, Version: tutorialv1.GroupVersion.Version}
}

// AddToScheme registers the Foo types under group. A scheme must hold them under one group
// only: a client refuses to guess between two.
func AddToScheme(scheme *runtime.Scheme, group string) error {
	if group == tutorialv1.GroupVersion.Group {
		return tutorialv1.AddToScheme(scheme)
	}
	gv := GroupVersion(group)
	scheme.AddKnownTypes(gv, &tutorialv1.Foo{}, &tutorialv1.FooList{})
	metav1.AddToGroupVersion(scheme, gv)
	return nil
}

// LoadCRD reads the Foo CRD, as `make manifests` generates it, from path.
func LoadCRD(path string) (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return nil, fmt.Errorf("reading the Foo CRD %s: %w", path, err)
	}
	return crd, nil
}

// CRD returns crd, the Foo CRD, served under group instead: same schema, same status
// subresource, so that the apiserver does the same work for every group.
func CRD(crd *apiextensionsv1.CustomResourceDefinition, group string) *apiextensionsv1.CustomResourceDefinition {
	served := crd.DeepCopy()
	served.Spec.Group = group
	served.Name = served.Spec.Names.Plural + "." + group
	return served
}
