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

// Package faults breaks a local cluster the way users' clusters break, for tests of what the
// operator does through it: the node's kubelet or containerd restarted, a container killed
// through the runtime, a pod cut off from the apiserver, kube-apiserver stopped, killed and
// started again, etcd compacted past every watch. It needs the cluster's node and control
// plane (Injector).
package faults
