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

// Package node runs a local cluster's one node inside a network, mount and PID namespace of
// its own: containerd and runc, the kubelet, kube-proxy, and CoreDNS as a pod, pulling every
// image from the cluster's registry. It needs root, the Debian packages of `make
// node-packages` (runc, the CNI plugins, tini, the netfilter tools), containerd, the
// kubelet and kube-proxy (`make node`), the node's images (`make node-images`), and the
// cluster's control plane, which runs in the same namespace.
package node
