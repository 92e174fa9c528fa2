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

// Package process starts and stops the programs of a local cluster and keeps their logs:
// each in a process group of its own, stopped together (Group), inside the node's network,
// mount and PID namespace when the cluster has one (Namespace), with one line of progress
// per phase (Progress), bounded waits (Poll), free loopback ports, and a check that nothing
// listens beyond loopback (ExposedListeners). It needs util-linux's unshare and nsenter,
// and tini, for a namespace.
package process
