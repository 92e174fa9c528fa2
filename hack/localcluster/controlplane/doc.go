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

// Package controlplane starts a local cluster's control plane: etcd, kube-apiserver and, for
// a cluster with a node, kube-controller-manager and kube-scheduler, with the certificates
// they and their clients use, and the kubeconfigs of its users. It needs the binaries of
// etcd and Kubernetes (`make envtest`, `make node`) and a process.Host; with a node, it runs
// inside the host's namespace, the node's, and serves the apiserver on the machine's
// loopback too.
package controlplane
