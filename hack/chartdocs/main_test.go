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

package main

import (
	"strings"
	"testing"
)

const testSchema = `{"type": "object", "properties": {
  "global": {"type": "object", "description": "Helm's."},
  "replicas": {"type": "integer", "description": "How many."},
  "image": {"type": "object", "description": "The image.", "properties": {
    "repository": {"type": "string", "description": "Where | from."},
    "pullSecrets": {"type": "array", "description": "Secrets."}}}}}`

func TestValuesListsEveryLeafWithItsDefault(t *testing.T) {
	rows, err := Values([]byte(testSchema), []byte("replicas: 2\nimage:\n  repository: r\n  pullSecrets: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := "| Key | Type | Default | Description |\n|---|---|---|---|\n" +
		"| `image.pullSecrets` | array | `[]` | Secrets. |\n" +
		"| `image.repository` | string | `\"r\"` | Where \\| from. |\n" +
		"| `replicas` | integer | `2` | How many. |\n"
	if got := Table(rows); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestValuesNamesEveryKeyTheSchemaAndTheDefaultsDisagreeOn(t *testing.T) {
	for name, tc := range map[string]struct{ schema, values, want string }{
		"a value the schema does not know": {testSchema,
			"replicas: 2\nimage:\n  repository: r\n  pullSecrets: []\n  tag: v1\n", "image.tag: in values.yaml, not in the schema"},
		"a value with no default":     {testSchema, "replicas: 2\nimage:\n  repository: r\n", "image.pullSecrets: values.yaml gives no default"},
		"an object given as a scalar": {testSchema, "replicas: 2\nimage: r\n", "image: values.yaml gives r, the schema an object"},
		"a value with no description": {strings.Replace(testSchema, `"description": "How many."`, `"minimum": 1`, 1),
			"replicas: 2\nimage:\n  repository: r\n  pullSecrets: []\n", "replicas: the schema gives no description"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Values([]byte(tc.schema), []byte(tc.values))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

func TestReplaceRewritesOnlyBetweenTheMarkers(t *testing.T) {
	readme := "# Chart\n" + beginMarker + "\nold table\n" + endMarker + "\nAfter.\n"
	got, err := Replace([]byte(readme), "new table\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Chart\n" + beginMarker + "\nnew table\n" + endMarker + "\nAfter.\n"; string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := Replace([]byte("# Chart\n"+endMarker+"\n"+beginMarker+"\n"), "t"); err == nil {
		t.Error("markers out of order were accepted")
	}
	if _, err := Replace([]byte("# Chart\n"), "t"); err == nil {
		t.Error("a README without the markers was accepted")
	}
}
