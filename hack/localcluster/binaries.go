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

package localcluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Assets are the programs a local cluster runs and the images its node needs.
type Assets struct {
	// Etcd, APIServer, ControllerManager, Scheduler, Kubelet and KubeProxy: `make envtest`
	// builds the first two, `make node` the rest, into one folder per Kubernetes version.
	Etcd, APIServer, ControllerManager, Scheduler, Kubelet, KubeProxy string
	// Containerd is the folder of containerd and its runc shim.
	Containerd string
	// Runc is the OCI runtime; CNIPlugins the folder of the CNI plugins (Debian's runc and
	// containernetworking-plugins).
	Runc, CNIPlugins string
	// Registry is distribution's registry.
	Registry string
	// NodeImages is the OCI image layout holding the images the node itself needs (pause,
	// coredns) and the tests' helper images; they are pushed to the registry at start.
	NodeImages string

	// What installing OLM needs: OLMv0Module and OLMv1Module are the folders of OLM's and
	// operator-controller's modules, whose release manifests are installed, rendered by Helm
	// (OLM's chart) and adapted with Kustomize; OLMImages is the OCI image layout of OLM's
	// images and of those its users need (`make olm-images`), pushed to the registry.
	OLMv0Module, OLMv1Module, Helm, Kustomize, OLMImages string
}

// AssetsFromEnv finds the assets where `make` puts them and says so through the environment
// of the tests it runs: KUBEBUILDER_ASSETS (the Kubernetes components and etcd), CONTAINERD
// (containerd's folder), REGISTRY_SERVER, NODE_IMAGES, and for OLM OLM_MODULE, OLMV1_MODULE,
// HELM, KUSTOMIZE and OLM_IMAGES.
func AssetsFromEnv() Assets {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	in := func(name string) string {
		if assets == "" {
			return ""
		}
		return filepath.Join(assets, name)
	}
	return Assets{
		Etcd: in("etcd"), APIServer: in("kube-apiserver"), ControllerManager: in("kube-controller-manager"),
		Scheduler: in("kube-scheduler"), Kubelet: in("kubelet"), KubeProxy: in("kube-proxy"),
		Containerd: os.Getenv("CONTAINERD"), Runc: "/usr/sbin/runc", CNIPlugins: "/usr/lib/cni",
		Registry: os.Getenv("REGISTRY_SERVER"), NodeImages: os.Getenv("NODE_IMAGES"),
		OLMv0Module: os.Getenv("OLM_MODULE"), OLMv1Module: os.Getenv("OLMV1_MODULE"),
		Helm: os.Getenv("HELM"), Kustomize: os.Getenv("KUSTOMIZE"), OLMImages: os.Getenv("OLM_IMAGES"),
	}
}

// check fails, naming what builds it, for a binary that opts needs and is missing.
func (b Assets) check(opts Options) error {
	type need struct{ path, what, how string }
	needs := []need{
		{b.Etcd, "etcd", "make envtest (KUBEBUILDER_ASSETS)"},
		{b.APIServer, "kube-apiserver", "make envtest (KUBEBUILDER_ASSETS)"},
	}
	if opts.Node {
		needs = append(needs, need{b.ControllerManager, "kube-controller-manager", "make kube-controller-manager"})
	}
	if opts.Node {
		needs = append(needs,
			need{b.Scheduler, "kube-scheduler", "make node"}, need{b.Kubelet, "kubelet", "make node"},
			need{b.KubeProxy, "kube-proxy", "make node"},
			need{filepath.Join(b.Containerd, "containerd"), "containerd", "make node (CONTAINERD)"},
			need{filepath.Join(b.Containerd, "containerd-shim-runc-v2"), "containerd-shim-runc-v2", "make node (CONTAINERD)"},
			need{b.Runc, "runc", "apt-get install runc"},
			need{filepath.Join(b.CNIPlugins, "bridge"), "the CNI plugins", "apt-get install containernetworking-plugins"},
			need{b.NodeImages, "the node's images", "make node-images (NODE_IMAGES)"})
	}
	if opts.Registry {
		needs = append(needs, need{b.Registry, "the image registry", "make registry (REGISTRY_SERVER)"})
	}
	var errs []error
	for _, n := range needs {
		if n.path == "" {
			errs = append(errs, fmt.Errorf("no path given for %s: %s builds it", n.what, n.how))
			continue
		}
		if _, err := os.Stat(n.path); err != nil {
			errs = append(errs, fmt.Errorf("%s is missing (%s builds it): %w", n.what, n.how, err))
		}
	}
	return errors.Join(errs...)
}
