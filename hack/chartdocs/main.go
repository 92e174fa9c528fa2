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

// Command chartdocs lists every value of a Helm chart in its README, between the lines
//
//	<!-- values: make helm-chart writes this table from values.schema.json -->
//	<!-- /values -->
//
// one row a value: its key, type, default (from values.yaml) and description (from the
// schema). It fails, naming the key, when the schema and values.yaml do not describe the
// same values: a value the schema does not know, or one values.yaml gives no default. So the
// README, the schema and the defaults cannot drift apart: `make verify` runs it.
//
//	chartdocs dist/chart
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

const (
	beginMarker = "<!-- values: make helm-chart writes this table from values.schema.json -->"
	endMarker   = "<!-- /values -->"
)

// schema is the part of a JSON schema the table shows.
type schema struct {
	Type                 string             `json:"type"`
	Description          string             `json:"description"`
	Properties           map[string]*schema `json:"properties"`
	AdditionalProperties any                `json:"additionalProperties"`
}

// value is one row of the table.
type value struct {
	key, kind, defaultValue, description string
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: chartdocs <chart folder>")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "chartdocs:", err)
		os.Exit(1)
	}
}

func run(chart string) error {
	schemaJSON, err := os.ReadFile(filepath.Join(chart, "values.schema.json"))
	if err != nil {
		return err
	}
	valuesYAML, err := os.ReadFile(filepath.Join(chart, "values.yaml"))
	if err != nil {
		return err
	}
	values, err := Values(schemaJSON, valuesYAML)
	if err != nil {
		return err
	}
	readmePath := filepath.Join(chart, "README.md")
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		return err
	}
	updated, err := Replace(readme, Table(values))
	if err != nil {
		return fmt.Errorf("%s: %w", readmePath, err)
	}
	return os.WriteFile(readmePath, updated, 0o644)
}

// Values walks the schema and the defaults together and returns a row for every value the
// schema describes down to a leaf (a property that is not an object with properties of its
// own), in key order; or an error naming every key the two disagree on.
func Values(schemaJSON, valuesYAML []byte) ([]value, error) {
	var root schema
	if err := json.Unmarshal(schemaJSON, &root); err != nil {
		return nil, fmt.Errorf("values.schema.json: %w", err)
	}
	var defaults map[string]any
	if err := yaml.Unmarshal(valuesYAML, &defaults); err != nil {
		return nil, fmt.Errorf("values.yaml: %w", err)
	}
	var rows []value
	var problems []error
	var walk func(prefix string, node *schema, given map[string]any)
	walk = func(prefix string, node *schema, given map[string]any) {
		for _, name := range slices.Sorted(maps.Keys(node.Properties)) {
			property, key := node.Properties[name], prefix+name
			if property.Description == "" {
				problems = append(problems, fmt.Errorf("%s: the schema gives no description", key))
			}
			defaultValue, ok := given[name]
			if !ok {
				// global is Helm's own, for charts that depend on this one.
				if key != "global" {
					problems = append(problems, fmt.Errorf("%s: values.yaml gives no default", key))
				}
				continue
			}
			if len(property.Properties) > 0 {
				nested, isMap := defaultValue.(map[string]any)
				if !isMap {
					problems = append(problems, fmt.Errorf("%s: values.yaml gives %v, the schema an object", key, defaultValue))
					continue
				}
				walk(key+".", property, nested)
				continue
			}
			shown, err := json.Marshal(defaultValue)
			if err != nil {
				problems = append(problems, fmt.Errorf("%s: %w", key, err))
				continue
			}
			rows = append(rows, value{key: key, kind: property.Type, defaultValue: string(shown), description: property.Description})
		}
		for _, name := range slices.Sorted(maps.Keys(given)) {
			if _, ok := node.Properties[name]; !ok {
				problems = append(problems, fmt.Errorf("%s%s: in values.yaml, not in the schema", prefix, name))
			}
		}
	}
	walk("", &root, defaults)
	return rows, errors.Join(problems...)
}

// Table renders the rows as a Markdown table.
func Table(rows []value) string {
	var table strings.Builder
	table.WriteString("| Key | Type | Default | Description |\n|---|---|---|---|\n")
	for _, row := range rows {
		fmt.Fprintf(&table, "| `%s` | %s | `%s` | %s |\n", row.key, row.kind, row.defaultValue,
			strings.ReplaceAll(row.description, "|", `\|`))
	}
	return table.String()
}

// Replace puts table between the README's markers, which must each be there once.
func Replace(readme []byte, table string) ([]byte, error) {
	begin, end := bytes.Index(readme, []byte(beginMarker)), bytes.Index(readme, []byte(endMarker))
	if begin < 0 || end < begin || bytes.Count(readme, []byte(beginMarker)) != 1 {
		return nil, fmt.Errorf("want the lines %q and %q, once each and in that order", beginMarker, endMarker)
	}
	var out bytes.Buffer
	out.Write(readme[:begin+len(beginMarker)])
	out.WriteString("\n" + table)
	out.Write(readme[end:])
	return out.Bytes(), nil
}
