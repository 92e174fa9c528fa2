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
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/test/harness"
)

// TestCatalogPassesOpmValidate runs the validation OLM's catalog tooling runs before serving.
func TestCatalogPassesOpmValidate(t *testing.T) {
	opm := requireEnv(t, "OPM")
	output, err := exec.Command(opm, "validate", catalogDir).CombinedOutput()
	if err != nil {
		t.Fatalf("opm validate %s: %v\n%s", catalogDir, err, output)
	}
}

// catalogEntry is an entry of an olm.channel.
type catalogEntry struct {
	Name      string   `json:"name"`
	Replaces  string   `json:"replaces"`
	Skips     []string `json:"skips"`
	SkipRange string   `json:"skipRange"`
}

// catalogObject holds the fields of the file-based catalog schemas these tests read.
type catalogObject struct {
	Schema     string         `json:"schema"`
	Name       string         `json:"name"`
	Package    string         `json:"package"`
	Image      string         `json:"image"`
	Entries    []catalogEntry `json:"entries"`
	Properties []struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	} `json:"properties"`
}

// TestStableChannelIsOneUpgradeChain checks the upgrade graph OLM walks: every entry but the
// first replaces an existing one, one head replaces (or skips) all others, every release is
// reachable from the head, and each entry is a bundle of the package with its version.
func TestStableChannelIsOneUpgradeChain(t *testing.T) {
	objects := loadCatalog(t)

	var channel *catalogObject
	bundles := map[string]catalogObject{}
	for i, object := range objects {
		switch object.Schema {
		case "olm.channel":
			if object.Name == "stable" {
				channel = &objects[i]
			}
		case "olm.bundle":
			bundles[object.Name] = object
		}
	}
	if channel == nil || len(channel.Entries) == 0 {
		t.Fatal("the catalog has no stable channel with entries")
	}

	entries := map[string]catalogEntry{}
	replaces, skipped := map[string]string{}, map[string]bool{}
	for _, entry := range channel.Entries {
		entries[entry.Name] = entry
		replaces[entry.Name] = entry.Replaces
		for _, name := range entry.Skips {
			skipped[name] = true
		}
	}
	head := entries[checkUpgradeGraph(t, "the stable channel", replaces, skipped)]
	headVersion := bundleVersion(t, bundles, head.Name)
	if len(entries) > 1 {
		skipRange, err := semver.ParseRange(head.SkipRange)
		if err != nil {
			t.Fatalf("the head %s has no valid skipRange %q: %v", head.Name, head.SkipRange, err)
		}
		for name := range entries {
			if name != head.Name && !skipRange(bundleVersion(t, bundles, name)) {
				t.Errorf("the head's skipRange %q does not cover %s", head.SkipRange, name)
			}
		}
	}
	if makefileVersion := harness.MakefileVersion(t, repoRoot); headVersion.String() != makefileVersion {
		t.Errorf("the head of the channel is %s, but the Makefile builds VERSION %s: run `make release`", headVersion, makefileVersion)
	}
}

// bundleVersion returns the olm.package version of bundle name, and checks it matches the name.
func bundleVersion(t *testing.T, bundles map[string]catalogObject, name string) semver.Version {
	t.Helper()
	bundle, ok := bundles[name]
	if !ok {
		t.Fatalf("the channel names %s, which is not a bundle in the catalog", name)
	}
	for _, property := range bundle.Properties {
		if property.Type != "olm.package" {
			continue
		}
		var pkg struct {
			PackageName string `json:"packageName"`
			Version     string `json:"version"`
		}
		if err := json.Unmarshal(property.Value, &pkg); err != nil {
			t.Fatal(err)
		}
		version, err := semver.Parse(pkg.Version)
		if err != nil || pkg.PackageName != packageName || name != packageName+".v"+pkg.Version {
			t.Fatalf("bundle %s has package %q version %q", name, pkg.PackageName, pkg.Version)
		}
		return version
	}
	t.Fatalf("bundle %s has no olm.package property", name)
	return semver.Version{}
}

func loadCatalog(t *testing.T) []catalogObject {
	t.Helper()
	var objects []catalogObject
	err := filepath.WalkDir(catalogDir, func(path string, entry os.DirEntry, err error) error {
		if err != nil || entry.IsDir() {
			return err
		}
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(harness.ReadFile(t, path))))
		for {
			document, err := reader.Read()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if len(bytes.TrimSpace(document)) == 0 || string(bytes.TrimSpace(document)) == "---" {
				continue
			}
			var object catalogObject
			if err := yaml.Unmarshal(document, &object); err != nil {
				return err
			}
			objects = append(objects, object)
		}
	})
	if err != nil {
		t.Fatalf("Reading the catalog: %v", err)
	}
	return objects
}

// TestScorecardRunsTheStandardTestsOfTheSDKInUse checks bundle/tests/scorecard/config.yaml.
func TestScorecardRunsTheStandardTestsOfTheSDKInUse(t *testing.T) {
	var config struct {
		Stages []struct {
			Tests []struct {
				Entrypoint []string `json:"entrypoint"`
				Image      string   `json:"image"`
			} `json:"tests"`
		} `json:"stages"`
	}
	if err := yaml.Unmarshal(harness.ReadFile(t, bundleDir+"/tests/scorecard/config.yaml"), &config); err != nil {
		t.Fatal(err)
	}
	sdkVersion := ""
	for _, line := range strings.Split(string(harness.ReadFile(t, repoRoot+"/hack/tools/operator-sdk/go.mod")), "\n") {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(fields) >= 2 && fields[0] == "github.com/operator-framework/operator-sdk" {
			sdkVersion = fields[1]
		}
	}

	var tests []string
	for _, stage := range config.Stages {
		for _, test := range stage.Tests {
			tests = append(tests, test.Entrypoint[len(test.Entrypoint)-1])
			if want := "quay.io/operator-framework/scorecard-test:" + sdkVersion; test.Image != want {
				t.Errorf("scorecard test %v runs %s, want %s", test.Entrypoint, test.Image, want)
			}
		}
	}
	want := []string{"basic-check-spec", "olm-bundle-validation", "olm-crds-have-validation",
		"olm-crds-have-resources", "olm-spec-descriptors", "olm-status-descriptors"}
	if strings.Join(tests, ",") != strings.Join(want, ",") {
		t.Errorf("scorecard runs %v, want %v", tests, want)
	}
}
