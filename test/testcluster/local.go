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
	"fmt"
	"net"

	"k8s.io/client-go/rest"

	"github.com/example/foo-operator/hack/localcluster"
	"github.com/example/foo-operator/hack/localcluster/registry"
)

// LocalProvider starts a local cluster with a node and a registry (localcluster.Start with
// Options) and has every capability: the suite owns each process of it.
type LocalProvider struct {
	Options localcluster.Options
}

// Local is a local cluster the suite started.
type Local struct {
	*localcluster.Cluster
	// auditLog is the apiserver's audit log, if its flags asked for one.
	auditLog string
}

// A Local has every capability.
var (
	_ APIServerRestarter = (*Local)(nil)
	_ ContainerKiller    = (*Local)(nil)
	_ NodeRestarter      = (*Local)(nil)
	_ Partitioner        = (*Local)(nil)
	_ PodDialer          = (*Local)(nil)
	_ AuditLogReader     = (*Local)(nil)
	_ RegistryMirrorer   = (*Local)(nil)
	_ NodeCgroupReader   = (*Local)(nil)
)

// Description says where the cluster runs.
func (p LocalProvider) Description() string {
	return fmt.Sprintf("the local cluster in %s", p.Options.Dir)
}

// Capabilities are all of them; AuditLog needs the apiserver's audit flags in Options.
func (p LocalProvider) Capabilities() []Capability {
	if p.Options.APIServerFlags["audit-log-path"] == "" {
		return []Capability{APIServerRestart, ContainerKill, NodeRestart, Partition, PodNetwork, RegistryMirror, NodeCgroups}
	}
	return AllCapabilities()
}

// Start starts the cluster.
func (p LocalProvider) Start(ctx context.Context) (Cluster, error) {
	if !p.Options.Node || !p.Options.Registry {
		return nil, fmt.Errorf("a cluster under test needs a node and a registry")
	}
	if p.Options.Dir == "" {
		return nil, fmt.Errorf("the local cluster needs a folder for its data and logs: run the suite with its make target, which names one")
	}
	cluster, err := localcluster.Start(ctx, p.Options)
	if err != nil {
		return nil, err
	}
	return &Local{Cluster: cluster, auditLog: p.Options.APIServerFlags["audit-log-path"]}, nil
}

// RESTConfig authenticates as the cluster's administrator: a copy, which the caller may change.
func (l *Local) RESTConfig() *rest.Config { return rest.CopyConfig(l.Config) }

// KubeconfigPath is the administrator's kubeconfig file.
func (l *Local) KubeconfigPath() string { return l.Kubeconfig }

// ImageRegistry is the cluster's registry.
func (l *Local) ImageRegistry() *registry.Registry { return l.Registry }

// DialPod connects to a pod or Service address from inside the node's network.
func (l *Local) DialPod(ctx context.Context, network, address string) (net.Conn, error) {
	return l.Namespace.Dial(ctx, network, address)
}

// AuditLogPath is the apiserver's audit log.
func (l *Local) AuditLogPath() string { return l.auditLog }

// CgroupRoot is where this machine mounts its cgroup hierarchies, which the node's kubelet
// and containerd use: the node runs in namespaces of this machine's kernel.
func (l *Local) CgroupRoot() string { return "/sys/fs/cgroup" }
