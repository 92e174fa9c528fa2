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
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPublishRefusesToPushUnsigned runs the publishing targets without a usable COSIGN_KEY and
// expects each to stop before it builds or pushes anything, saying what to set: nothing is
// ever published unsigned in silence.
func TestPublishRefusesToPushUnsigned(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "cosign.key")
	for _, target := range []string{"publish", "images-push"} {
		for key, want := range map[string]string{
			"":      "COSIGN_KEY is not set: every image that is published is signed",
			missing: "COSIGN_KEY=" + missing + ": no such file",
		} {
			// An address nothing listens on: were anything pushed, it would fail otherwise.
			make := exec.Command("make", "--no-print-directory", target, "COSIGN_KEY="+key,
				"IMAGE_TAG_BASE=127.0.0.1:9/refused/foo-operator", "CONTAINER_TOOL=imagebuilder")
			make.Dir = repoRoot
			output, err := make.CombinedOutput()
			if err == nil {
				t.Errorf("make %s COSIGN_KEY=%q passed:\n%s", target, key, output)
				continue
			}
			if !strings.Contains(string(output), want) {
				t.Errorf("make %s COSIGN_KEY=%q failed without saying %q:\n%s", target, key, want, output)
			}
			if lines := strings.Split(strings.TrimSpace(string(output)), "\n"); len(lines) > 2 {
				t.Errorf("make %s COSIGN_KEY=%q did more than refuse:\n%s", target, key, output)
			}
		}
	}
}
