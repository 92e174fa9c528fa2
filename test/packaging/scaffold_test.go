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

	"github.com/example/foo-operator/test/harness"
)

// TestOperatorSDKScaffoldsIntoTheLayout adds a kind to a copy of the project with
// operator-sdk's own `create api`, as a developer would, and checks that the SDK understands
// the layout PROJECT declares: the new type and controller land beside the existing ones,
// the SDK wires the controller into cmd/main.go at its markers, nothing appears in the old
// places, and the result builds.
func TestOperatorSDKScaffoldsIntoTheLayout(t *testing.T) {
	operatorSDK := requireEnv(t, "OPERATOR_SDK")
	controllerGen := requireEnv(t, "CONTROLLER_GEN")
	project := copyOfProject(t)

	// --make=false: the test runs the generator itself, with the controller-gen already built.
	run(t, project, operatorSDK, "create", "api", "--group", "tutorial", "--version", "v1alpha1", "--kind", "Bar",
		"--resource", "--controller", "--make=false")

	for _, path := range []string{"api/v1alpha1/bar_types.go", "internal/controller/bar_controller.go", "cmd/main.go"} {
		if _, err := os.Stat(filepath.Join(project, path)); err != nil {
			t.Errorf("operator-sdk create api did not write %s: %v", path, err)
		}
	}
	for _, path := range []string{"main.go", "controllers"} {
		if _, err := os.Stat(filepath.Join(project, path)); err == nil {
			t.Errorf("operator-sdk create api wrote %s, a place of the layout before go/v4", path)
		}
	}
	main := string(harness.ReadFile(t, filepath.Join(project, "cmd", "main.go")))
	for _, wiring := range []string{"controller.BarReconciler", "tutorialv1alpha1.AddToScheme(scheme)"} {
		if !strings.Contains(main, wiring) {
			t.Errorf("operator-sdk create api did not add %q to cmd/main.go: its scaffold markers are missing or moved", wiring)
		}
	}

	run(t, project, controllerGen, "object:headerFile=hack/boilerplate.go.txt", "paths=./api/...")
	run(t, project, "go", "build", "./...")
	run(t, project, "go", "vet", "./cmd/...", "./internal/...")
}

// copyOfProject copies the files of the project that git would track (its build output and
// scratch folders left out) into a temporary folder.
func copyOfProject(t *testing.T) string {
	t.Helper()
	project := t.TempDir()
	list := exec.Command("git", "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	list.Dir = repoRoot
	files, err := list.Output()
	if err != nil {
		t.Fatalf("listing the project's files with git: %v", err)
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(repoRoot, name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(project, name)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return project
}

// run runs a command in dir and fails the test with its output if it fails.
func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	command := exec.Command(name, args...)
	command.Dir = dir
	if output, err := command.CombinedOutput(); err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), dir, err, output)
	}
}
