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
// against envtest's control plane: the operator's
// manifests, the credentials it runs with, and what the suites check of the Foos; and the
// checks that the suites of the project's files and images share.
package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	tutorialv1 "github.com/example/foo-operator/api/v1"
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

// ControlPlane is the kube-apiserver and etcd of controller-runtime's envtest, started from
// the binaries `make test` builds (KUBEBUILDER_ASSETS), with the Foo CRD installed. envtest
// runs the apiserver with RBAC authorization and the default admission plugins, PodSecurity
// among them, but ServiceAccount: no controller creates the namespaces' default
// ServiceAccounts, and no kubelet runs the pods the suites create. It serves ServiceAccount
// tokens through the TokenRequest API, so that a manager runs with its ServiceAccount's
// permissions and nothing more.
type ControlPlane struct {
	environment *envtest.Environment
	// Config authenticates as an administrator (system:masters).
	Config *rest.Config
	// Client is an administrator's client that knows the Foo types.
	Client    client.Client
	Clientset kubernetes.Interface
}

// StartControlPlane starts envtest's control plane and installs the Foo CRD of
// config/crd/bases, or, if crds are given, those instead (the benchmark's, one Foo kind per
// implementation).
func StartControlPlane(crds ...*apiextensionsv1.CustomResourceDefinition) (*ControlPlane, error) {
	cp := &ControlPlane{environment: &envtest.Environment{CRDs: crds}}
	if len(crds) == 0 {
		cp.environment.CRDDirectoryPaths = []string{filepath.Join(RepoRoot, "config", "crd", "bases")}
		cp.environment.ErrorIfCRDPathMissing = true
	}
	var err error
	if cp.Config, err = cp.environment.Start(); err != nil {
		return nil, fmt.Errorf("starting kube-apiserver and etcd from KUBEBUILDER_ASSETS (run the suite with its make target): %w", err)
	}
	if cp.Client, err = client.New(cp.Config, client.Options{Scheme: Scheme}); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	if cp.Clientset, err = kubernetes.NewForConfig(cp.Config); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	return cp, nil
}

// Stop stops the apiserver and etcd and removes their data.
func (cp *ControlPlane) Stop() error { return cp.environment.Stop() }

// WriteAdminKubeconfig writes a kubeconfig at path for an administrator (system:masters),
// for the programs a suite runs as processes.
func (cp *ControlPlane) WriteAdminKubeconfig(path string) error {
	admin, err := cp.environment.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return err
	}
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		return err
	}
	return os.WriteFile(path, kubeconfig, 0o600)
}

// WriteTokenKubeconfig writes a kubeconfig at path that reaches the apiserver, trusting its
// CA, and authenticates with token alone.
func (cp *ControlPlane) WriteTokenKubeconfig(path, token string) error {
	config := clientcmdapi.NewConfig()
	config.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cp.Config.Host, CertificateAuthorityData: cp.Config.CAData}
	config.AuthInfos["token"] = &clientcmdapi.AuthInfo{Token: token}
	config.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "token"}
	config.CurrentContext = "envtest"
	return clientcmd.WriteToFile(*config, path)
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
