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

// Package pki is the local cluster's certificate authorities: a CA kept in a folder (so that
// clients given it keep trusting the servers after they restart), and the serving and client
// certificates it signs for the control plane, the registry and in-cluster Services. It
// needs nothing but a folder.
package pki
