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

// Command pause is the sandbox of every pod on the local node: it holds the pod's
// namespaces and does nothing else until it is told to end. As PID 1 of a pod whose
// containers share their process namespace, it also reaps the processes orphaned there.
// It is the local cluster's own, built here like every image the node runs.
package main
