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
// It also parses the flags the benchmark gives the implementations it builds (ParseFlags).
package fooapi

import (
	"flag"
	"fmt"
	"os"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
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

// Flags are the flags the benchmark gives every implementation it runs besides the manager:
// where to serve metrics, the readiness probe and pprof, and the group of its Foos.
type Flags struct {
	MetricsAddr, ProbeAddr, PprofAddr, Group string
}

// ParseFlags parses the command line of an implementation, its logging flags included, and
// sets controller-runtime's logger from them. writes says what the implementation does with
// its Foos, for the help of --group.
func ParseFlags(writes string) Flags {
	var f Flags
	flag.StringVar(&f.MetricsAddr, "metrics-bind-address", "0", "The address the plain-HTTP metrics endpoint binds to; '0' disables it.")
	flag.StringVar(&f.ProbeAddr, "health-probe-bind-address", "0", "The address the readiness probe binds to; '0' disables it.")
	flag.StringVar(&f.PprofAddr, "pprof-bind-address", "0", "The address the pprof endpoint binds to; '0' disables it.")
	flag.StringVar(&f.Group, "group", tutorialv1.GroupVersion.Group, "The API group of the Foos to "+writes+".")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	return f
}
