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

package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
)

// The checks of the plain `testing` suites that several of them make, of the project's own
// files and of its bundles.

// TestingT is what those checks need of a test: a *testing.T, which the harness takes
// through this interface so as to hold no test framework itself.
type TestingT interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// ReadFile returns what the file at path holds, failing the test where it cannot be read.
func ReadFile(t TestingT, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return data
}

// Releases lists the releases of the project in dir: those cut before, frozen under
// releases/ (oldest first), and the one in the making, the Makefile's VERSION.
func Releases(dir string) (earlier []string, newest string, err error) {
	matches, err := filepath.Glob(filepath.Join(dir, "releases", "*", "source-commit"))
	if err != nil {
		return nil, "", err
	}
	parsed := map[string]*version.Version{}
	for _, match := range matches {
		release := filepath.Base(filepath.Dir(match))
		if parsed[release], err = version.ParseSemantic(release); err != nil {
			return nil, "", fmt.Errorf("releases/%s: %w", release, err)
		}
		earlier = append(earlier, release)
	}
	slices.SortFunc(earlier, func(a, b string) int {
		switch {
		case parsed[a].LessThan(parsed[b]):
			return -1
		case parsed[b].LessThan(parsed[a]):
			return 1
		}
		return 0
	})
	makefile, err := os.ReadFile(filepath.Join(dir, "Makefile"))
	if err != nil {
		return nil, "", err
	}
	for _, line := range strings.Split(string(makefile), "\n") {
		if value, ok := strings.CutPrefix(line, "VERSION ?= "); ok {
			return earlier, strings.TrimSpace(value), nil
		}
	}
	return nil, "", fmt.Errorf("the Makefile of %s sets no VERSION", dir)
}

// MakefileVersion is the VERSION the Makefile of the project in dir builds.
func MakefileVersion(t TestingT, dir string) string {
	t.Helper()
	_, newest, err := Releases(dir)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return newest
}

// CheckBundleValidates runs `operator-sdk bundle validate` on bundle (a folder, or an image
// reference that operator-sdk pulls) with args, in workDir (this process's own where it is
// ""), and wants it to pass with neither an error nor a warning.
func CheckBundleValidates(t TestingT, operatorSDK, workDir, bundle string, args ...string) {
	t.Helper()
	command := exec.Command(operatorSDK, append(append([]string{"bundle", "validate", bundle}, args...), "--output", "json-alpha1")...)
	command.Dir = workDir
	output, err := command.Output()
	validate := "operator-sdk bundle validate " + strings.Join(append([]string{bundle}, args...), " ")
	var result struct {
		Passed  bool `json:"passed"`
		Outputs []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"outputs"`
	}
	if jsonErr := json.Unmarshal(output, &result); jsonErr != nil {
		t.Fatalf("%s: %v %v\n%s", validate, err, jsonErr, output)
	}
	for _, finding := range result.Outputs {
		if finding.Type == "error" || finding.Type == "warning" {
			t.Errorf("%s: %s: %s", validate, finding.Type, finding.Message)
		}
	}
	if !result.Passed || err != nil {
		t.Errorf("%s did not pass: %v\n%s", validate, err, output)
	}
}
