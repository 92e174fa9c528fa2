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
	"slices"
	"strings"
	"testing"

	"github.com/example/foo-operator/test/harness"
)

// The README's table of the ways to install says, of each way the journeys take, whether its
// uninstall keeps the Foos (the journeys check each answer on a cluster), and a row that says
// neither is refused.
func TestReadmeSaysWhatEachUninstallRemoves(t *testing.T) {
	claims, err := harness.UninstallClaims(string(harness.ReadFile(t, repoRoot+"/README.md")))
	if err != nil {
		t.Fatal(err)
	}
	ways := []string{harness.WayMakeDeploy, harness.WayInstallYAML, harness.WayHelm, harness.WayOLMBundle, harness.WayOLMCatalog, harness.WayOLMv1}
	for _, way := range ways {
		if _, ok := claims[way]; !ok {
			t.Errorf("the README's table of the ways to install has no row %q", way)
		}
	}
	for way := range claims {
		if !slices.Contains(ways, way) {
			t.Errorf("the README's table of the ways to install has a row %q that no journey checks", way)
		}
	}

	vague := "<!-- uninstall table: a test checks each row on a cluster -->\n| Way in | Uninstalling removes |\n| --- | --- |\n" +
		"| Helm | the operator, and maybe the Foos |\n<!-- /uninstall table -->\n"
	if _, err := harness.UninstallClaims(vague); err == nil || !strings.Contains(err.Error(), "says neither") {
		t.Errorf("a row that says neither answer: error %v", err)
	}
}
