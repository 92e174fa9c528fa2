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

package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/example/foo-operator/hack/localcluster/controlplane"
	"github.com/example/foo-operator/hack/localcluster/node"
	"github.com/example/foo-operator/hack/localcluster/process"
)

// Injector injects the faults into one cluster's node and control plane.
type Injector struct {
	Node         *node.Node
	ControlPlane *controlplane.ControlPlane
	Host         *process.Host
}

// RestartKubelet stops the node's kubelet with SIGTERM, as systemd does on `systemctl
// restart kubelet`, starts it again with the same settings, and waits for the node to be
// Ready. The containers run on meanwhile: they belong to containerd.
func (f *Injector) RestartKubelet(ctx context.Context) error {
	if f.Node == nil {
		return errNoNode
	}
	if _, err := f.Node.Kubelet().Stop(30 * time.Second); err != nil {
		return err
	}
	restarted := time.Now()
	if err := f.Node.StartKubelet(ctx); err != nil {
		return err
	}
	// The node was Ready before: wait for the new kubelet's own word, its first renewal of
	// the node's Lease.
	return process.Poll(ctx, time.Minute, "the restarted kubelet to renew the node's Lease", func() (bool, string) {
		lease, err := f.ControlPlane.Clientset.CoordinationV1().Leases("kube-node-lease").Get(ctx, controlplane.NodeName, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		if lease.Spec.RenewTime == nil {
			return false, "never renewed"
		}
		return lease.Spec.RenewTime.After(restarted), "renewed " + lease.Spec.RenewTime.String()
	})
}

// RestartContainerd stops the node's containerd with SIGTERM and starts it again, as an
// upgrade of the runtime does. The containers run on under their shims, which the new
// containerd finds again.
func (f *Injector) RestartContainerd(ctx context.Context) error {
	if f.Node == nil {
		return errNoNode
	}
	if _, err := f.Node.Containerd().Stop(30 * time.Second); err != nil {
		return err
	}
	return f.Node.StartContainerd(ctx)
}

// CutFromAPIServer drops, inside the node's network, every packet that the pod with address
// podIP sends to the apiserver, whether to the kubernetes Service (kube-proxy's DNAT comes
// later) or to the apiserver's own address, as a broken network path or a wrong network
// policy would. Connections already open stall rather than end. restore lifts the cut; calling it again does nothing.
func (f *Injector) CutFromAPIServer(ctx context.Context, podIP string) (restore func(context.Context) error, err error) {
	if f.Node == nil {
		return nil, errNoNode
	}
	if net.ParseIP(podIP) == nil {
		return nil, fmt.Errorf("%q is not a pod address", podIP)
	}
	// A table of its own, in a chain ahead of connection tracking (raw priority), so that
	// lifting the cut is deleting the table and kube-proxy's rules are never touched.
	table := "localcluster-cut-" + strings.NewReplacer(".", "-", ":", "-").Replace(podIP)
	rules := fmt.Sprintf(`table inet %s {
	chain prerouting {
		type filter hook prerouting priority raw; policy accept;
		ip saddr %s ip daddr { %s, %s } drop
	}
}
`, table, podIP, controlplane.KubernetesServiceIP, controlplane.NodeIP)
	if err := f.Host.Namespace.RunWithInput(ctx, rules, "nft", "-f", "-"); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	lifted := false
	return func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if lifted {
			return nil
		}
		if err := f.Host.Namespace.Run(ctx, "nft", "delete", "table", "inet", table); err != nil {
			return err
		}
		lifted = true
		return nil
	}, nil
}

// KillAPIServer ends kube-apiserver with SIGKILL, as a crash of its machine would, leaving
// the rest running; StartAPIServer brings it back. Unlike StopAPIServer's graceful stop, its
// clients' connections break at once.
func (f *Injector) KillAPIServer() { f.ControlPlane.KillAPIServer() }

// StopAPIServer stops kube-apiserver with SIGTERM and leaves the rest running, as an outage
// would (controlplane.ControlPlane.StopAPIServer).
func (f *Injector) StopAPIServer() error { return f.ControlPlane.StopAPIServer() }

// StartAPIServer starts kube-apiserver again after a stop or a kill, on the same address,
// etcd and certificates, so that every credential handed out stays valid.
func (f *Injector) StartAPIServer(ctx context.Context) error {
	return f.ControlPlane.StartAPIServer(ctx)
}

// AwaitKubernetesService waits, at most timeout, until the kubernetes Service's address,
// by which pods reach the apiserver, takes a connection from the node's network again. After
// a graceful stop kube-apiserver has taken itself out of the Service's endpoints; started
// again, it puts itself back, but the pods reach it only once kube-proxy, whose watches
// back off while the apiserver is away, has programmed that endpoint again.
func (f *Injector) AwaitKubernetesService(ctx context.Context, timeout time.Duration) error {
	if f.Node == nil {
		return errors.New("the cluster has no node, and so no Service addresses")
	}
	address := net.JoinHostPort(controlplane.KubernetesServiceIP, "443")
	return process.Poll(ctx, timeout, "a connection to the kubernetes Service at "+address+" from the node's network", func() (bool, string) {
		dialCtx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		conn, err := f.Host.Namespace.Dial(dialCtx, "tcp", address)
		if err != nil {
			return false, err.Error()
		}
		_ = conn.Close()
		return true, ""
	})
}

// CompactEtcd compacts etcd's history, as the apiserver does every few minutes, past every
// resourceVersion a client has seen before the call, and returns the compacted revision: a
// watch or list from such a resourceVersion then fails with 410 Gone. It talks to etcd's JSON
// gateway.
func (f *Injector) CompactEtcd(ctx context.Context) (int64, error) {
	httpClient := &http.Client{Transport: &http.Transport{
		DialContext: func(_ context.Context, network, address string) (net.Conn, error) {
			return f.Host.Dial(network, address)
		},
	}}
	call := func(path string, request any, response any) error {
		body, err := json.Marshal(request)
		if err != nil {
			return err
		}
		httpRequest, err := http.NewRequestWithContext(ctx, http.MethodPost, f.ControlPlane.EtcdURL()+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		httpResponse, err := httpClient.Do(httpRequest)
		if err != nil {
			return fmt.Errorf("etcd %s: %w", path, err)
		}
		defer func() { _ = httpResponse.Body.Close() }()
		answer, err := io.ReadAll(httpResponse.Body)
		if err != nil {
			return err
		}
		if httpResponse.StatusCode != http.StatusOK {
			return fmt.Errorf("etcd %s: %s: %s", path, httpResponse.Status, answer)
		}
		return json.Unmarshal(answer, response)
	}
	// A watch from resourceVersion R starts at revision R+1, and etcd keeps the compacted
	// revision itself. Compacting at the current revision would leave a watch from it, or
	// from the one before if nothing was written since, alive; so two writes of a key
	// outside the apiserver's prefix come first, and the compaction is at the second.
	const marker = "/localcluster/compaction-marker"
	var written struct {
		Header struct {
			Revision int64 `json:"revision,string"`
		} `json:"header"`
	}
	for range 2 {
		if err := call("/v3/kv/put", map[string]any{"key": []byte(marker), "value": []byte("compact")}, &written); err != nil {
			return 0, err
		}
	}
	revision := written.Header.Revision
	if err := call("/v3/kv/compaction", map[string]any{"revision": strconv.FormatInt(revision, 10), "physical": true}, &struct{}{}); err != nil {
		return 0, err
	}
	if err := call("/v3/kv/deleterange", map[string]any{"key": []byte(marker)}, &struct{}{}); err != nil {
		return 0, err
	}
	return revision, nil
}

// SignalContainer sends signal (such as SIGKILL) to the main process of a container of the
// node, named as a pod's status names it (containerd://ID), as the kernel's OOM killer or a
// crash would end it: the kubelet then restarts the container in the same pod.
func (f *Injector) SignalContainer(ctx context.Context, containerID, signal string) error {
	if f.Node == nil {
		return errNoNode
	}
	id, ok := strings.CutPrefix(containerID, "containerd://")
	if !ok {
		return fmt.Errorf("container %q is not one of containerd's", containerID)
	}
	return f.Host.Namespace.Run(ctx, f.Node.Ctr(),
		"--address", "/run/containerd/containerd.sock", "--namespace", "k8s.io", "tasks", "kill", "--signal", signal, id)
}

// errNoNode is what a fault of the node says on a cluster without one.
var errNoNode = errors.New("the cluster has no node")
