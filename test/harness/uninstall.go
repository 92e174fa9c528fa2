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
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The ways in that the README's table of ways to install names in its first column.
const (
	WayMakeDeploy  = "make deploy"
	WayInstallYAML = "install.yaml"
	WayHelm        = "Helm"
	WayOLMBundle   = "OLM bundle"
	WayOLMCatalog  = "OLM catalog"
	WayOLMv1       = "OLM v1"
)

// The two answers a cell of the table's "Uninstalling removes" column starts with.
const (
	uninstallKeepsFoos   = "the operator; the CRD and every Foo are kept"
	uninstallDeletesFoos = "the operator, the CRD and every Foo"
)

// UninstallKeepsFoos reads, from the README's table of the ways to install, whether
// uninstalling the operator installed that way keeps the CRD and every Foo; the journeys
// check the answer on the cluster, so that the table cannot drift from what happens.
func UninstallKeepsFoos(way string) (bool, error) {
	readme, err := os.ReadFile(filepath.Join(RepoRoot, "README.md"))
	if err != nil {
		return false, err
	}
	claims, err := UninstallClaims(string(readme))
	if err != nil {
		return false, err
	}
	keeps, ok := claims[way]
	if !ok {
		return false, fmt.Errorf("the README's table of the ways to install has no row %q", way)
	}
	return keeps, nil
}

// UninstallClaims reads the README's table of the ways to install, between its markers: for
// each way in (the first column), whether its uninstall keeps the CRD and every Foo.
func UninstallClaims(readme string) (map[string]bool, error) {
	const column = "Uninstalling removes"
	rows, err := MarkedTable(readme, "<!-- uninstall table: a test checks each row on a cluster -->", "<!-- /uninstall table -->")
	if err != nil {
		return nil, fmt.Errorf("the README's table of the ways to install: %w", err)
	}
	claims := map[string]bool{}
	for _, row := range rows {
		removes, ok := row[column]
		switch {
		case !ok:
			return nil, fmt.Errorf("the README's table of the ways to install has no column %q", column)
		case strings.HasPrefix(removes, uninstallKeepsFoos):
			claims[row["Way in"]] = true
		case strings.HasPrefix(removes, uninstallDeletesFoos):
			claims[row["Way in"]] = false
		default:
			return nil, fmt.Errorf("the README's table of the ways to install: %q says neither %q nor %q",
				removes, uninstallKeepsFoos, uninstallDeletesFoos)
		}
	}
	return claims, nil
}
