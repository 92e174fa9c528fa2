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
)

// The faults a node's operator must survive, injected the way they happen on real nodes.

// RestartKubelet stops the node's kubelet with SIGTERM, as systemd does on `systemctl
// restart kubelet`, starts it again with the same settings, and waits for the node to be
// Ready. The containers run on meanwhile: they belong to containerd.
func (c *Cluster) RestartKubelet(ctx context.Context) error {
	if c.node == nil {
		return errors.New("the cluster has no node")
	}
	if _, err := c.node.kubelet.Stop(30 * time.Second); err != nil {
		return err
	}
	restarted := time.Now()
	if err := c.node.runKubelet(ctx, c); err != nil {
		return err
	}
	// The node was Ready before: wait for the new kubelet's own word, its first renewal of
	// the node's Lease.
	return poll(ctx, time.Minute, "the restarted kubelet to renew the node's Lease", func() (bool, string) {
		lease, err := c.Clientset.CoordinationV1().Leases("kube-node-lease").Get(ctx, nodeName, metav1.GetOptions{})
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
func (c *Cluster) RestartContainerd(ctx context.Context) error {
	if c.node == nil {
		return errors.New("the cluster has no node")
	}
	if _, err := c.node.containerd.Stop(30 * time.Second); err != nil {
		return err
	}
	return c.node.runContainerd(ctx, c)
}

// CutFromAPIServer drops, inside the node's network, every packet that the pod with address
// podIP sends to the apiserver, whether to the kubernetes Service (kube-proxy's DNAT comes
// later) or to the apiserver's own address, as a broken network path or a wrong network
// policy would. Connections already open stall rather than end. restore lifts the cut; calling it again does nothing.
func (c *Cluster) CutFromAPIServer(ctx context.Context, podIP string) (restore func(context.Context) error, err error) {
	if c.Namespace == nil {
		return nil, errors.New("the cluster has no node")
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
`, table, podIP, kubernetesServiceIP, nodeIP)
	if err := c.Namespace.runWithInput(ctx, rules, "nft", "-f", "-"); err != nil {
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
		if err := c.Namespace.run(ctx, "nft", "delete", "table", "inet", table); err != nil {
			return err
		}
		lifted = true
		return nil
	}, nil
}

// KillAPIServer ends kube-apiserver with SIGKILL, as a crash of its machine would, leaving
// the rest running; StartAPIServer brings it back. Unlike StopAPIServer's graceful stop, its
// clients' connections break at once.
func (c *Cluster) KillAPIServer() {
	c.cp.apiserver.Kill()
}

// AwaitKubernetesService waits, at most timeout, until the kubernetes Service's address,
// by which pods reach the apiserver, takes a connection from the node's network again. After
// a graceful stop kube-apiserver has taken itself out of the Service's endpoints; started
// again, it puts itself back, but the pods reach it only once kube-proxy, whose watches
// back off while the apiserver is away, has programmed that endpoint again.
func (c *Cluster) AwaitKubernetesService(ctx context.Context, timeout time.Duration) error {
	if c.Namespace == nil {
		return errors.New("the cluster has no node, and so no Service addresses")
	}
	address := net.JoinHostPort(kubernetesServiceIP, "443")
	return poll(ctx, timeout, "a connection to the kubernetes Service at "+address+" from the node's network", func() (bool, string) {
		dialCtx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		conn, err := c.Namespace.Dial(dialCtx, "tcp", address)
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
func (c *Cluster) CompactEtcd(ctx context.Context) (int64, error) {
	httpClient := &http.Client{Transport: &http.Transport{
		DialContext: func(_ context.Context, network, address string) (net.Conn, error) { return c.dial(network, address) },
	}}
	call := func(path string, request any, response any) error {
		body, err := json.Marshal(request)
		if err != nil {
			return err
		}
		httpRequest, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cp.etcdURL+path, bytes.NewReader(body))
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
