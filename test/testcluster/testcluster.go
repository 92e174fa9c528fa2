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

// Package testcluster is the cluster a suite tests, whoever provides it: the local cluster
// the suite starts itself (Local), or a cluster the user already has, named by KUBECONFIG,
// with a registry it pulls from named by REGISTRY (Existing). Every provider gives a
// kubeconfig and a registry the suite pushes to and the cluster pulls from; what a suite can
// do to a cluster beyond its API (restart its apiserver, kill a container through its node's
// runtime, ...) is a Capability, which only some providers have. A spec that needs one
// carries the capability's name as a Ginkgo label, and LabelFilter leaves it out, saying so,
// on a provider without it. It holds no test framework.
package testcluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/example/foo-operator/hack/localcluster"
	"github.com/example/foo-operator/hack/localcluster/registry"
)

// Cluster is what every provider gives a suite.
type Cluster interface {
	// RESTConfig authenticates as the cluster's administrator.
	RESTConfig() *rest.Config
	// KubeconfigPath is the kubeconfig file of that administrator, for the tools a suite runs.
	KubeconfigPath() string
	// ImageRegistry is the registry the suite pushes images to and the cluster pulls from.
	ImageRegistry() *registry.Registry
	// Image is the reference the cluster pulls one of the node's test images from, by name:
	// "pause" (a container that only waits), "busybox" (a shell) or "httpget" (an HTTPS client).
	Image(name string) string
	// Stop stops what the provider started; a cluster the suite did not start stays.
	Stop() error
}

// Provider gives a suite its Cluster.
type Provider interface {
	// Description says which cluster it gives, for the suite's log.
	Description() string
	// Capabilities are what the provider's clusters let a suite do beyond their API.
	Capabilities() []Capability
	// Start starts the cluster, or checks that it answers, and returns it.
	Start(ctx context.Context) (Cluster, error)
}

// Capability is something a suite does to a cluster beyond its API, which only some
// providers offer. Its value is the Ginkgo label of the specs that need it.
type Capability string

// The capabilities, each with the interface of a Cluster that has it.
const (
	// APIServerRestart stops, kills and starts the apiserver, and compacts etcd (APIServerRestarter).
	APIServerRestart Capability = "apiserver-restart"
	// ContainerKill signals a container through the node's container runtime (ContainerKiller).
	ContainerKill Capability = "container-kill"
	// NodeRestart restarts the node's kubelet and containerd (NodeRestarter).
	NodeRestart Capability = "node-restart"
	// Partition cuts a pod off from the apiserver (Partitioner).
	Partition Capability = "partition"
	// PodNetwork connects to pod addresses from the suite (PodDialer).
	PodNetwork Capability = "pod-network"
	// AuditLog reads the apiserver's audit log of writes to Foo statuses (AuditLogReader).
	AuditLog Capability = "audit-log"
	// RegistryMirror tells the node to pull a registry's images from another (RegistryMirrorer).
	RegistryMirror Capability = "registry-mirror"
	// NodeCgroups reads the CPU and memory accounting of the node's containers from this
	// machine's cgroups and processes: the node shares this machine's kernel (NodeCgroupReader).
	NodeCgroups Capability = "node-cgroups"
)

// capabilityPurposes says what each capability is for, in the words the suite prints when
// it leaves out the specs that need it.
var capabilityPurposes = map[Capability]string{
	APIServerRestart: "stop, kill and start its apiserver and compact its etcd",
	ContainerKill:    "kill a container through its node's container runtime",
	NodeRestart:      "restart its node's kubelet and containerd",
	Partition:        "cut a pod off from its apiserver",
	PodNetwork:       "connect to pod addresses",
	AuditLog:         "read its apiserver's audit log",
	RegistryMirror:   "make its node pull a registry's images from a mirror",
	NodeCgroups:      "read its node's container cgroups on this machine",
}

// AllCapabilities lists every capability, in a fixed order.
func AllCapabilities() []Capability {
	all := make([]Capability, 0, len(capabilityPurposes))
	for capability := range capabilityPurposes {
		all = append(all, capability)
	}
	slices.Sort(all)
	return all
}

// APIServerRestarter is a Cluster whose apiserver a suite can stop and start (APIServerRestart).
type APIServerRestarter interface {
	StopAPIServer() error
	KillAPIServer()
	StartAPIServer(ctx context.Context) error
	CompactEtcd(ctx context.Context) (int64, error)
	AwaitKubernetesService(ctx context.Context, timeout time.Duration) error
}

// ContainerKiller is a Cluster whose node's runtime signals containers (ContainerKill).
type ContainerKiller interface {
	SignalContainer(ctx context.Context, containerID, signal string) error
}

// NodeRestarter is a Cluster whose node's kubelet and containerd a suite restarts (NodeRestart).
type NodeRestarter interface {
	RestartKubelet(ctx context.Context) error
	RestartContainerd(ctx context.Context) error
}

// Partitioner is a Cluster that cuts a pod off from its apiserver (Partition).
type Partitioner interface {
	CutFromAPIServer(ctx context.Context, podIP string) (restore func(context.Context) error, err error)
}

// PodDialer is a Cluster whose pod addresses a suite connects to (PodNetwork).
type PodDialer interface {
	DialPod(ctx context.Context, network, address string) (net.Conn, error)
}

// AuditLogReader is a Cluster whose apiserver's audit log a suite reads (AuditLog).
type AuditLogReader interface {
	AuditLogPath() string
}

// RegistryMirrorer is a Cluster whose node pulls a registry's images from a mirror (RegistryMirror).
type RegistryMirrorer interface {
	MirrorRegistry(mirrored string, mirror *registry.Registry) error
}

// NodeCgroupReader is a Cluster whose node's containers run on this machine's kernel, so that
// their cgroups are under CgroupRoot and their processes in this machine's /proc (NodeCgroups).
type NodeCgroupReader interface {
	CgroupRoot() string
}

// LabelFilter returns the Ginkgo label filter that runs what filter selects, less the specs
// labelled with a capability the provider lacks, and a line for each capability left out
// saying why, for the suite to print: a spec is never skipped silently.
func LabelFilter(provider Provider, filter string) (string, []string) {
	var excluded, reasons []string
	for _, capability := range AllCapabilities() {
		if slices.Contains(provider.Capabilities(), capability) {
			continue
		}
		excluded = append(excluded, "!"+string(capability))
		reasons = append(reasons, fmt.Sprintf("Leaving out the specs labelled %q: %s offers no way to %s.",
			capability, provider.Description(), capabilityPurposes[capability]))
	}
	if len(excluded) == 0 {
		return filter, nil
	}
	if strings.TrimSpace(filter) != "" {
		excluded = append([]string{"(" + filter + ")"}, excluded...)
	}
	return strings.Join(excluded, " && "), reasons
}

// FromEnv is the provider USE_EXISTING_CLUSTER asks for, the one choice every suite makes
// the same way: with "true", the cluster of KUBECONFIG and the registry of REGISTRY (and
// REGISTRY_CA), which get the node's test images from local's assets; otherwise the local
// cluster local describes, which the suite starts and stops. workDir receives what the
// provider writes besides the cluster.
func FromEnv(local localcluster.Options, workDir string) (Provider, error) {
	switch useExisting := os.Getenv("USE_EXISTING_CLUSTER"); useExisting {
	case "true":
		return ExistingFromEnv(local.Assets.NodeImages, workDir)
	case "", "false":
		return LocalProvider{Options: local}, nil
	default:
		return nil, fmt.Errorf("USE_EXISTING_CLUSTER=%s: set it to true for the cluster of KUBECONFIG, or leave it empty for a local cluster", useExisting)
	}
}
