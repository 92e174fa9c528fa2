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

// Package harness starts what the black-box tests of the operator run against: a real
// kube-apiserver and etcd with the Foo CRD, the manager binary as a separate process, and
// the credentials (ServiceAccount tokens, kubeconfigs) it runs with.
package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// RepoRoot is the root of the operator's source tree.
var RepoRoot = func() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}()

// ControlPlane is a kube-apiserver (with RBAC authorization and the default admission
// plugins, PodSecurity among them) and an etcd, with the Foo CRD installed.
type ControlPlane struct {
	env *envtest.Environment
	// certDir outlives apiserver restarts, so that the serving certificate, the client CA and
	// the ServiceAccount signing key, and with them every credential handed out, stay valid.
	certDir string

	// Config authenticates as a cluster administrator (system:masters).
	Config *rest.Config
	// Client is an administrator's client that knows the Foo types.
	Client client.Client
	// Clientset is an administrator's typed client for the built-in APIs.
	Clientset *kubernetes.Clientset
}

// StartControlPlane starts etcd and kube-apiserver from KUBEBUILDER_ASSETS (set by
// `make test`) and installs the Foo CRD.
func StartControlPlane() (*ControlPlane, error) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		return nil, errors.New("KUBEBUILDER_ASSETS must name the folder holding kube-apiserver and etcd: run the tests with make")
	}
	certDir, err := os.MkdirTemp("", "foo-apiserver-")
	if err != nil {
		return nil, err
	}
	apiServer := &envtest.APIServer{CertDir: certDir}
	// envtest's default too, set here because the RBAC tests mean nothing without it.
	apiServer.Configure().Set("authorization-mode", "RBAC")
	cp := &ControlPlane{
		certDir: certDir,
		env: &envtest.Environment{
			CRDDirectoryPaths:     []string{filepath.Join(RepoRoot, "config", "crd", "bases")},
			ErrorIfCRDPathMissing: true,
			ControlPlane:          envtest.ControlPlane{APIServer: apiServer},
		},
	}
	if cp.Config, err = cp.env.Start(); err != nil {
		_ = os.RemoveAll(certDir)
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	if cp.Client, err = client.New(cp.Config, client.Options{Scheme: Scheme}); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	if cp.Clientset, err = kubernetes.NewForConfig(cp.Config); err != nil {
		return nil, errors.Join(err, cp.Stop())
	}
	return cp, nil
}

// Scheme knows the built-in types and the Foo API.
var Scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(tutorialv1.AddToScheme(s))
	return s
}()

// Stop stops kube-apiserver and etcd and removes their files.
func (cp *ControlPlane) Stop() error {
	err := cp.env.Stop()
	return errors.Join(err, os.RemoveAll(cp.certDir))
}

// StopAPIServer stops kube-apiserver and leaves etcd running, to simulate an apiserver outage.
func (cp *ControlPlane) StopAPIServer() error {
	return cp.env.ControlPlane.APIServer.Stop()
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, on the same address and
// etcd and with the same certificates.
func (cp *ControlPlane) StartAPIServer() error {
	return cp.env.ControlPlane.APIServer.Start()
}

// FooResource is the REST resource of Foos.
var FooResource = schema.GroupVersionResource{Group: tutorialv1.GroupVersion.Group, Version: tutorialv1.GroupVersion.Version, Resource: "foos"}
