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
	"os"
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

// requireEnv returns the value of the environment variable name, which names a tool that
// `make test` passes in.
func requireEnv(t *testing.T, name string) string {
	t.Helper()
	value := os.Getenv(name)
	if value == "" {
		t.Fatalf("%s must name the tool: run the tests with `make test`", name)
	}
	return value
}

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

// checkUpgradeGraph checks the upgrade graph OLM builds from replaces (each release's name,
// and the name of the release it replaces or "") and skipped (the releases another one
// skips): every replaced release exists, one head is neither replaced nor skipped, and it
// reaches every release through replaces, with no loop. It returns the head; what names
// the graph in messages.
func checkUpgradeGraph(t *testing.T, what string, replaces map[string]string, skipped map[string]bool) string {
	t.Helper()
	replaced := map[string]bool{}
	for name, previous := range replaces {
		if previous == "" {
			continue
		}
		if _, ok := replaces[previous]; !ok {
			t.Errorf("in %s, %s replaces %s, which is not there", what, name, previous)
		}
		replaced[previous] = true
	}
	var heads []string
	for name := range replaces {
		if !replaced[name] && !skipped[name] {
			heads = append(heads, name)
		}
	}
	if len(heads) != 1 {
		t.Fatalf("%s has heads %v, want exactly one", what, heads)
	}
	reached := map[string]bool{}
	for name := heads[0]; name != ""; name = replaces[name] {
		if reached[name] {
			t.Fatalf("the replaces chain of %s loops at %s", what, name)
		}
		reached[name] = true
	}
	for name := range replaces {
		if !reached[name] {
			t.Errorf("in %s, %s is not reachable from the head %s through replaces", what, name, heads[0])
		}
	}
	return heads[0]
}
