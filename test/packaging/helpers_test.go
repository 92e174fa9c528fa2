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

// Package packaging checks what OLM and OperatorHub get from this project: the bundle in
// bundle/ and the file-based catalog in catalog/. The files are checked as committed, so
// run `make bundle catalog` (or `make test`) after changing their inputs.
package packaging

import (
	"path/filepath"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
)

const (
	repoRoot    = "../.."
	packageName = "foo-operator"
)

var (
	bundleDir  = filepath.Join(repoRoot, "bundle")
	catalogDir = filepath.Join(repoRoot, "catalog")
)

// loadBundle loads bundle/ the way OLM's tooling does.
func loadBundle(t *testing.T) *manifests.Bundle {
	t.Helper()
	bundle, err := manifests.GetBundleFromDir(bundleDir)
	if err != nil {
		t.Fatalf("Loading %s: %v", bundleDir, err)
	}
	return bundle
}

func loadCSV(t *testing.T) *operatorsv1alpha1.ClusterServiceVersion {
	t.Helper()
	bundle := loadBundle(t)
	if bundle.CSV == nil {
		t.Fatalf("%s has no ClusterServiceVersion", bundleDir)
	}
	return bundle.CSV
}
