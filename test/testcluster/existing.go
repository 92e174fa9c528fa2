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

package testcluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/example/foo-operator/hack/localcluster/registry"
)

// ExistingProvider gives a cluster the user already runs: the suite reaches it only through
// its kubeconfig's apiserver and the registry it pulls from, and has no capability.
type ExistingProvider struct {
	// Kubeconfig is the kubeconfig file of a cluster administrator (KUBECONFIG).
	Kubeconfig string
	// Registry is the host[:port] of a registry the suite can push to and the cluster's
	// nodes pull from (REGISTRY).
	Registry string
	// RegistryCA is the PEM file of the CA of the registry's certificate, if this machine
	// does not trust it already (REGISTRY_CA).
	RegistryCA string
	// NodeImages is the image layout of the test images (pause, busybox) that the suite
	// pushes to the registry for its pods (`make node-images`).
	NodeImages string
	// WorkDir receives the trust bundle of the registry.
	WorkDir string
}

// ExistingFromEnv is the ExistingProvider that KUBECONFIG, REGISTRY and REGISTRY_CA name;
// it fails naming each variable that is missing.
func ExistingFromEnv(nodeImages, workDir string) (ExistingProvider, error) {
	provider := ExistingProvider{
		Kubeconfig: os.Getenv("KUBECONFIG"), Registry: os.Getenv("REGISTRY"), RegistryCA: os.Getenv("REGISTRY_CA"),
		NodeImages: nodeImages, WorkDir: workDir,
	}
	var missing []string
	if provider.Kubeconfig == "" {
		missing = append(missing, "KUBECONFIG (the kubeconfig file of the cluster's administrator)")
	}
	if provider.Registry == "" {
		missing = append(missing, "REGISTRY (host:port of a registry the suite pushes to and the cluster pulls from)")
	}
	if len(missing) > 0 {
		return provider, fmt.Errorf("an existing cluster is named by %s", strings.Join(missing, " and "))
	}
	if strings.Contains(provider.Kubeconfig, string(filepath.ListSeparator)) {
		return provider, fmt.Errorf("KUBECONFIG=%s: name one kubeconfig file", provider.Kubeconfig)
	}
	return provider, nil
}

// Description names the cluster and the registry.
func (p ExistingProvider) Description() string {
	return fmt.Sprintf("the existing cluster of KUBECONFIG=%s (registry %s)", p.Kubeconfig, p.Registry)
}

// Capabilities: none; the suite only talks to the cluster's API and its registry.
func (p ExistingProvider) Capabilities() []Capability { return nil }

// Start checks that the apiserver and the registry answer, then pushes the test images.
func (p ExistingProvider) Start(ctx context.Context) (Cluster, error) {
	config, err := clientcmd.BuildConfigFromFlags("", p.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("KUBECONFIG=%s: %w", p.Kubeconfig, err)
	}
	discoveryClient, err := discovery.NewDiscoveryClientForConfig(rest.CopyConfig(config))
	if err != nil {
		return nil, err
	}
	if _, err := discoveryClient.ServerVersion(); err != nil {
		return nil, fmt.Errorf("KUBECONFIG=%s: the apiserver at %s does not answer: %w", p.Kubeconfig, config.Host, err)
	}

	pushTo, err := registry.At(p.Registry, p.RegistryCA, filepath.Join(p.WorkDir, "registry-trust.pem"))
	if err != nil {
		return nil, fmt.Errorf("REGISTRY=%s, REGISTRY_CA=%s: %w", p.Registry, p.RegistryCA, err)
	}
	if err := registryAnswers(ctx, pushTo); err != nil {
		return nil, err
	}
	images := map[string]string{}
	pushed, err := pushTo.PushLayout(ctx, p.NodeImages, "pause:latest", "busybox:latest", "httpget:latest")
	if err != nil {
		return nil, fmt.Errorf("pushing the test images to REGISTRY=%s: %w", p.Registry, err)
	}
	for name, ref := range pushed {
		images[strings.SplitN(name, ":", 2)[0]] = ref
	}
	return &existing{config: config, kubeconfig: p.Kubeconfig, registry: pushTo, images: images}, nil
}

// registryAnswers checks that the registry serves the distribution API over TLS that the
// suite trusts; a registry that wants a login answers 401, which is enough here (the push
// then uses the login of ~/.docker/config.json).
func registryAnswers(ctx context.Context, pushTo *registry.Registry) error {
	transport, err := pushTo.Transport()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	request, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+pushTo.Host+"/v2/", nil)
	if err != nil {
		return err
	}
	response, err := (&http.Client{Transport: transport}).Do(request)
	if err != nil {
		return fmt.Errorf("REGISTRY=%s does not answer over HTTPS (set REGISTRY_CA to the PEM file of its CA if this machine does not trust it): %w",
			pushTo.Host, err)
	}
	_ = response.Body.Close()
	if response.StatusCode != http.StatusOK && response.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("REGISTRY=%s answers %s at /v2/: not a registry", pushTo.Host, response.Status)
	}
	return nil
}

// existing is a cluster the user runs.
type existing struct {
	config     *rest.Config
	kubeconfig string
	registry   *registry.Registry
	images     map[string]string
}

func (e *existing) RESTConfig() *rest.Config          { return rest.CopyConfig(e.config) }
func (e *existing) KubeconfigPath() string            { return e.kubeconfig }
func (e *existing) ImageRegistry() *registry.Registry { return e.registry }
func (e *existing) Image(name string) string          { return e.images[name] }
func (e *existing) Stop() error                       { return nil }

// errNoCapability is what a helper returns when asked for a capability a cluster lacks.
var errNoCapability = errors.New("the cluster under test has no such capability")

// As returns the cluster as the interface T of one of its capabilities, or an error naming
// the capability when the cluster lacks it: a spec that got here was not labelled with it.
func As[T any](cluster Cluster, capability Capability) (T, error) {
	if typed, ok := cluster.(T); ok {
		return typed, nil
	}
	var zero T
	return zero, fmt.Errorf("%w: %q (%s); label the spec %q so that it is left out here", errNoCapability,
		capability, capabilityPurposes[capability], capability)
}
