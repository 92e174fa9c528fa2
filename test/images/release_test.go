//go:build images

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

package images

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/example/foo-operator/test/harness"
)

// TestReleaseCutsAFourthReleaseThatPublishesWhole cuts release 0.4.0 in a copy of the
// project, as a maintainer would, publishes what it adds, and checks the published catalog:
// four releases, each reference resolving. The copy is thrown away, which reverts it.
func TestReleaseCutsAFourthReleaseThatPublishesWhole(t *testing.T) {
	copyDir := filepath.Join(t.TempDir(), "project")
	runIn(t, "", "cp", "-a", env.checkout, copyDir)
	// make release freezes the checked-out commit as the sources of 0.3.0; the copy's own
	// changes (bundle/ and catalog/ regenerated for the test's IMAGE_TAG_BASE) are committed
	// in the copy first, as a maintainer commits before releasing.
	runIn(t, copyDir, "git", "add", "-A")
	runIn(t, copyDir, "git", "-c", "user.name=image tests", "-c", "user.email=image-tests@example.com",
		"commit", "--quiet", "--allow-empty", "-m", "The project as the image tests publish it")

	before := harness.MakefileVersion(t, copyDir)
	runIn(t, copyDir, "make", "--no-print-directory", "release", "VERSION=0.4.0")
	if version := harness.MakefileVersion(t, copyDir); version != "0.4.0" {
		t.Fatalf("after make release the Makefile builds %s, want 0.4.0", version)
	}
	if _, err := os.Stat(filepath.Join(copyDir, "releases", before, "source-commit")); err != nil {
		t.Fatalf("make release did not freeze %s: %v", before, err)
	}
	channel := string(harness.ReadFile(t, filepath.Join(copyDir, "catalog", packageName, "channel-stable.yaml")))
	for _, want := range []string{"- name: foo-operator.v0.4.0", "replaces: foo-operator.v" + before, "skipRange: '>=0.1.0 <0.4.0'"} {
		if !strings.Contains(channel, want) {
			t.Errorf("the stable channel after make release lacks %q:\n%s", want, channel)
		}
	}

	start := time.Now()
	runIn(t, copyDir, "make", "--no-print-directory", "docker-build", "docker-push", "bundle-build", "bundle-push",
		"catalog-build", "catalog-push", "CONTAINER_TOOL=imagebuilder")
	t.Logf("Published 0.4.0 and its catalog in %.1fs", time.Since(start).Seconds())
	checkPublishedCatalog(t, copyDir)
}

// runIn runs a command in dir, failing the test with its output if it fails.
func runIn(t *testing.T, dir, command string, args ...string) {
	t.Helper()
	cmd := exec.Command(command, args...)
	cmd.Dir = dir
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", command, strings.Join(args, " "), dir, err, output)
	}
}
