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

package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/manifests"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/test/harness"
)

// TestOperatorHubSubmissionPassesTheCommunityChecks writes the community-operators layout
// with `make operatorhub` and runs on it the static checks that repository's pipeline runs
// before a release is merged.
func TestOperatorHubSubmissionPassesTheCommunityChecks(t *testing.T) {
	operatorSDK := requireEnv(t, "OPERATOR_SDK")
	newest := harness.MakefileVersion(t, repoRoot)
	answerImageInspections(t, makefilePlatforms(t))
	out := t.TempDir()
	make := exec.Command("make", "--no-print-directory", "operatorhub", "OPERATORHUB_DIR="+out)
	make.Dir = repoRoot
	if output, err := make.CombinedOutput(); err != nil {
		t.Fatalf("make operatorhub: %v\n%s", err, output)
	}
	packageDir := filepath.Join(out, "operators", packageName)

	var ci map[string]any
	if err := yaml.Unmarshal(harness.ReadFile(t, filepath.Join(packageDir, "ci.yaml")), &ci); err != nil {
		t.Fatalf("ci.yaml: %v", err)
	}
	if ci["updateGraph"] != "replaces-mode" {
		t.Errorf("ci.yaml has updateGraph %v, want replaces-mode (the CSVs carry the graph)", ci["updateGraph"])
	}

	entries, err := os.ReadDir(packageDir)
	if err != nil {
		t.Fatal(err)
	}
	replaces := map[string]string{} // CSV name -> the CSV it replaces
	for _, entry := range entries {
		if !entry.IsDir() {
			continue
		}
		version := entry.Name()
		dir := filepath.Join(packageDir, version)
		t.Run(version, func(t *testing.T) {
			// operatorhubv2 is what the deprecated "operatorhub" validator became; community
			// is the community-operators pipeline's own. multiarch holds the release in the
			// making's platform labels and node affinity to PLATFORMS; the earlier releases were
			// published without either, and are staged as they were released.
			selectors := []string{"name=operatorhubv2", "name=community", "suite=operatorframework"}
			if version == newest {
				selectors = append(selectors, "name=multiarch")
			}
			for _, selector := range selectors {
				harness.CheckBundleValidates(t, operatorSDK, "", dir, "--select-optional", selector)
			}
			bundle, err := manifests.GetBundleFromDir(dir)
			if err != nil || bundle.CSV == nil {
				t.Fatalf("loading %s: %v", dir, err)
			}
			csv := bundle.CSV
			if csv.Spec.Version.String() != version {
				t.Errorf("the folder %s holds CSV version %s", version, csv.Spec.Version)
			}
			replaces[csv.Name] = csv.Spec.Replaces
			required := map[string]bool{
				"displayName": csv.Spec.DisplayName != "", "description": csv.Spec.Description != "",
				"icon": len(csv.Spec.Icon) > 0, "maintainers": len(csv.Spec.Maintainers) > 0,
				"provider": csv.Spec.Provider.Name != "", "links": len(csv.Spec.Links) > 0,
				"keywords": len(csv.Spec.Keywords) > 0, "maturity": csv.Spec.Maturity != "",
				"minKubeVersion": csv.Spec.MinKubeVersion != "",
			}
			for _, annotation := range []string{
				"capabilities", "categories", "containerImage", "createdAt", "repository", "support", "description", "alm-examples",
			} {
				required["annotation "+annotation] = csv.Annotations[annotation] != ""
			}
			for field, present := range required {
				if !present {
					t.Errorf("the CSV of %s has no %s, which OperatorHub requires", version, field)
				}
			}
			for _, object := range bundle.Objects {
				if object.GetKind() == "NetworkPolicy" {
					t.Errorf("the bundle of %s ships NetworkPolicy %s, which OperatorHub's pipeline refuses", version, object.GetName())
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "metadata", "annotations.yaml")); err != nil {
				t.Errorf("the bundle of %s has no metadata/annotations.yaml: %v", version, err)
			}
		})
	}
	checkUpgradeGraph(t, "the submission", replaces, nil)

	for _, file := range listCatalogFiles(t) {
		if strings.Contains(string(harness.ReadFile(t, file)), "olm.bundle.object") {
			t.Errorf("%s carries olm.bundle.object, which the community catalogs refuse since OpenShift 4.17", file)
		}
	}
}

func listCatalogFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(catalogDir, packageName, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the catalog %s has no files: %v", catalogDir, err)
	}
	return files
}
