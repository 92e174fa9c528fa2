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

// Package harness holds the glue of the black-box suites that run the manager as a process
// against a local control plane (started by the localcluster library): the operator's
// manifests, the credentials it runs with, and what the suites check of the Foos; and the
// checks that the suites of the project's files and images share.
package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/hack/localcluster"
)

// RepoRoot is the root of the operator's source tree: the nearest folder above the working
// directory (a test's package folder) with the operator's go.mod. Not the path of this file
// in the binary, which -trimpath (as make builds the tests) turns into a module path.
var RepoRoot = func() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(fmt.Sprintf("finding the source tree: %v", err))
	}
	for start := dir; ; dir = filepath.Dir(dir) {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modfile.ModulePath(data) == operatorModule {
			return dir
		}
		if filepath.Dir(dir) == dir {
			panic(fmt.Sprintf("no folder at or above %s holds the go.mod of %s", start, operatorModule))
		}
	}
}()

// operatorModule is the module path of the operator's go.mod.
const operatorModule = "github.com/example/foo-operator"

// ControlPlane is a local cluster's control plane (kube-apiserver with RBAC authorization and
// the default admission plugins, PodSecurity among them, and etcd) with the Foo CRD
// installed, and clients that know the Foo types.
type ControlPlane struct {
	*localcluster.Cluster
	// Client is an administrator's client that knows the Foo types.
	Client client.Client
}

// StartControlPlane starts a control plane from what `make test` built (see
// localcluster.AssetsFromEnv) in a folder of its own, and installs the Foo CRD.
func StartControlPlane(ctx context.Context) (*ControlPlane, error) {
	dir, err := os.MkdirTemp("", "foo-control-plane-")
	if err != nil {
		return nil, err
	}
	cluster, err := localcluster.Start(ctx, localcluster.Options{
		Dir:      dir,
		Assets:   localcluster.AssetsFromEnv(),
		CRDPaths: []string{filepath.Join(RepoRoot, "config", "crd", "bases")},
	})
	if err != nil {
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	cp := &ControlPlane{Cluster: cluster}
	if cp.Client, err = client.New(cp.Config, client.Options{Scheme: Scheme}); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	return cp, nil
}

// Scheme knows the built-in types and the Foo API: what the suites' clients read and write.
var Scheme = NewScheme()

// NewScheme is the suites' one scheme, the built-in types and the Foo API, with the types of
// add besides (OLM's, for a suite that installs with OLM).
func NewScheme(add ...func(*runtime.Scheme) error) *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(tutorialv1.AddToScheme(s))
	for _, addTo := range add {
		utilruntime.Must(addTo(s))
	}
	return s
}

// FooResource is the REST resource of Foos.
var FooResource = schema.GroupVersionResource{Group: tutorialv1.GroupVersion.Group, Version: tutorialv1.GroupVersion.Version, Resource: "foos"}
