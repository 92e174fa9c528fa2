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

// Package managerprocess runs the operator's manager binary as a process on this machine,
// its endpoints on free loopback ports, against a cluster's kubeconfig: the demo's operator
// on a cluster without a node, and the suites and the benchmark that run the manager as a
// process.
package managerprocess
