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
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/example/foo-operator/test/harness"
)

// installerPage documents install.yaml, and the table of what each release's file dropped.
var installerPage = filepath.Join(repoRoot, "docs", "install-yaml.md")

// TestInstallerUpgradesLeaveNothingUnsaid compares each release's install.yaml with the one
// before it: `kubectl apply` of the newer file leaves behind what only the older one has, so
// each such object must be named, with the command that removes it, in install-yaml.md's
// table of dropped objects, and the table must say "nothing" of a release that dropped
// nothing.
func TestInstallerUpgradesLeaveNothingUnsaid(t *testing.T) {
	earlier, newest, err := harness.Releases(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	table := droppedObjectsTable(t, string(harness.ReadFile(t, installerPage)))
	installers := make([]string, 0, len(earlier)+1)
	for _, version := range earlier {
		installers = append(installers, filepath.Join(repoRoot, "releases", version, "install.yaml"))
	}
	versions := append(slices.Clone(earlier), newest)
	installers = append(installers, installerFile)
	for i := 1; i < len(versions); i++ {
		dropped := droppedObjects(decodeFile(t, installers[i-1]), decodeFile(t, installers[i]))
		row, ok := table[versions[i]]
		if !ok {
			t.Errorf("%s has no row for %s in its table of dropped objects", installerPage, versions[i])
			continue
		}
		for _, problem := range checkDroppedRow(versions[i], dropped, row) {
			t.Error(problem)
		}
	}
}

// A table that leaves out a dropped object, or says "nothing" of a release that dropped one,
// is caught; so is a row that names an object the release kept.
func TestCheckDroppedRowCatchesATableThatDrifted(t *testing.T) {
	dropped := []string{"role/foo-operator-old-role"}
	for name, c := range map[string]struct {
		row       droppedRow
		dropped   []string
		wantError string
	}{
		"a dropped object the table does not name": {droppedRow{objects: "nothing"}, dropped, "dropped role/foo-operator-old-role"},
		"an object named without its command": {droppedRow{objects: "role/foo-operator-old-role"}, dropped,
			"kubectl delete role/foo-operator-old-role"},
		"a release said to drop what it kept": {droppedRow{objects: "role/foo-operator-old-role",
			command: "kubectl delete role/foo-operator-old-role"}, nil, "says it dropped"},
	} {
		t.Run(name, func(t *testing.T) {
			problems := checkDroppedRow("9.9.9", c.dropped, c.row)
			if len(problems) != 1 || !strings.Contains(problems[0], c.wantError) {
				t.Errorf("problems %q, want one saying %q", problems, c.wantError)
			}
		})
	}
	if problems := checkDroppedRow("9.9.9", dropped, droppedRow{objects: "role/foo-operator-old-role",
		command: "kubectl -n foo-operator-system delete role/foo-operator-old-role"}); len(problems) != 0 {
		t.Errorf("a row that names the object and its command: problems %q", problems)
	}
}

// droppedRow is one release's row of the table: what its file dropped, and the command.
type droppedRow struct{ objects, command string }

// checkDroppedRow returns what is wrong with the row of version, given the objects (as
// kind/name, the kind in lower case) its file dropped.
func checkDroppedRow(version string, dropped []string, row droppedRow) []string {
	var problems []string
	if len(dropped) == 0 && row.objects != "nothing" {
		problems = append(problems, fmt.Sprintf("%s says it dropped %q: its install.yaml dropped nothing", version, row.objects))
	}
	for _, object := range dropped {
		switch {
		case !strings.Contains(row.objects, object):
			problems = append(problems, fmt.Sprintf("%s dropped %s from install.yaml, and the table of dropped objects says %q", version, object, row.objects))
		case !strings.Contains(row.command, "delete "+object):
			problems = append(problems, fmt.Sprintf("%s dropped %s: the table gives no `kubectl delete %s`", version, object, object))
		}
	}
	return problems
}

// droppedObjects returns, as kind/name, the objects of older that newer does not have.
func droppedObjects(older, newer []*unstructured.Unstructured) []string {
	key := func(object *unstructured.Unstructured) string {
		return object.GetNamespace() + " " + strings.ToLower(object.GetKind()) + "/" + object.GetName()
	}
	kept := map[string]bool{}
	for _, object := range newer {
		kept[key(object)] = true
	}
	var dropped []string
	for _, object := range older {
		if !kept[key(object)] {
			dropped = append(dropped, strings.ToLower(object.GetKind())+"/"+object.GetName())
		}
	}
	return dropped
}

// droppedObjectsTable reads the table between the page's markers, by release.
func droppedObjectsTable(t *testing.T, page string) map[string]droppedRow {
	t.Helper()
	table, err := harness.MarkedTable(page,
		"<!-- dropped objects: a test checks this table against every release's install.yaml -->", "<!-- /dropped objects -->")
	if err != nil {
		t.Fatalf("%s, its table of dropped objects: %v", installerPage, err)
	}
	rows := map[string]droppedRow{}
	for _, row := range table {
		rows[row["Release"]] = droppedRow{objects: row["Dropped from the file before it"], command: row["Remove it with"]}
	}
	return rows
}
