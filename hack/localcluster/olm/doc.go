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

// Package olm installs the Operator Lifecycle Manager on a local cluster as its releases do:
// OLM v0 from the release manifests rendered from its module's chart, OLM v1 (catalogd and
// operator-controller) from its module's release manifests, each adapted by the
// kustomization in v0/ or v1/, with every image published in the cluster's registry (`make
// olm-images`). It needs a node whose registry mirrors Mirrors, the OLM modules' folders,
// kustomize and, for OLM v0, helm.
package olm
