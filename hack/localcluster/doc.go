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

// Package localcluster starts a local cluster on this machine: the one behind `make demo`
// and `make cluster`, which users run, and the one the suites start when they are given no
// cluster of their own (test/testcluster's LocalProvider). Start composes the parts its
// Options ask for, each from the package of its concern, and Stop stops them all. It holds
// no test framework and imports nothing under test/: callers report its errors their own way.
//
//   - registry: distribution's registry on loopback, and pushes to any registry;
//   - controlplane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler;
//   - node: the node's namespace, containerd, the kubelet, kube-proxy, CoreDNS;
//   - olm: OLM v0 and OLM v1 from their release manifests;
//   - faults: the node's and the control plane's faults, injected as on real clusters;
//   - process, pki, resources: the processes, certificates and API calls they share;
//   - managerprocess: the operator's manager as a process, for a cluster without a node;
//   - images/pause, images/httpget: the programs of the node's own images.
package localcluster
