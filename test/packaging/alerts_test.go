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
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/test/harness"
)

var (
	alertsFile     = filepath.Join(repoRoot, "config", "prometheus", "alerts.yaml")
	alertTestsFile = filepath.Join("testdata", "alerts_test.yaml")
)

// prometheusRule is the part of config/prometheus/alerts.yaml that Prometheus reads: the
// PrometheusRule's spec is a rules file as Prometheus's own.
type prometheusRule struct {
	Spec struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []struct {
				Alert  string `json:"alert,omitempty"`
				Record string `json:"record,omitempty"`
			} `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

// promtoolTests is what TestAlertsAsPrometheusEvaluatesThem reads of the promtool tests.
type promtoolTests struct {
	Tests []struct {
		AlertRuleTests []struct {
			Alertname string            `json:"alertname"`
			ExpAlerts []json.RawMessage `json:"exp_alerts"`
		} `json:"alert_rule_test"`
	} `json:"tests"`
}

// TestAlertsAsPrometheusEvaluatesThem runs promtool's unit tests of the shipped alerts on the
// rules as the PrometheusRule carries them, and checks that every alert is shown both firing
// and quiet there and that the shipped file has no recording rule left untested.
func TestAlertsAsPrometheusEvaluatesThem(t *testing.T) {
	promtool := requireEnv(t, "PROMTOOL")
	var rule prometheusRule
	if err := yaml.Unmarshal(harness.ReadFile(t, alertsFile), &rule); err != nil {
		t.Fatalf("reading %s: %v", alertsFile, err)
	}
	var tests promtoolTests
	testsYAML := harness.ReadFile(t, alertTestsFile)
	if err := yaml.Unmarshal(testsYAML, &tests); err != nil {
		t.Fatalf("reading %s: %v", alertTestsFile, err)
	}
	firing, quiet := map[string]bool{}, map[string]bool{}
	for _, test := range tests.Tests {
		for _, check := range test.AlertRuleTests {
			if len(check.ExpAlerts) > 0 {
				firing[check.Alertname] = true
			} else {
				quiet[check.Alertname] = true
			}
		}
	}
	var alerts []string
	for _, group := range rule.Spec.Groups {
		for _, r := range group.Rules {
			if r.Record != "" {
				t.Errorf("recording rule %s has no promtool test: add one to %s (promql_expr_test)", r.Record, alertTestsFile)
			}
			if r.Alert != "" {
				alerts = append(alerts, r.Alert)
				if !firing[r.Alert] || !quiet[r.Alert] {
					t.Errorf("alert %s is not shown both firing (%t) and quiet (%t) in %s", r.Alert, firing[r.Alert], quiet[r.Alert], alertTestsFile)
				}
			}
		}
	}
	if len(alerts) == 0 {
		t.Fatalf("%s has no alert", alertsFile)
	}
	for name := range firing {
		if !slices.Contains(alerts, name) {
			t.Errorf("%s tests alert %s, which %s does not have", alertTestsFile, name, alertsFile)
		}
	}

	dir := t.TempDir()
	rules, err := yaml.Marshal(map[string]any{"groups": rawSpecGroups(t)})
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "rules.yaml"), rules)
	writeFile(t, filepath.Join(dir, "alerts_test.yaml"), testsYAML)
	command := exec.Command(promtool, "test", "rules", "alerts_test.yaml")
	command.Dir = dir
	var output bytes.Buffer
	command.Stdout, command.Stderr = &output, &output
	if err := command.Run(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, output.String())
	}
	if !strings.Contains(output.String(), "SUCCESS") {
		t.Fatalf("promtool test rules said no SUCCESS:\n%s", output.String())
	}
}

// rawSpecGroups returns the groups of the PrometheusRule as written, every field kept.
func rawSpecGroups(t *testing.T) any {
	t.Helper()
	var rule struct {
		Spec struct {
			Groups any `json:"groups"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(harness.ReadFile(t, alertsFile), &rule); err != nil {
		t.Fatal(err)
	}
	return rule.Spec.Groups
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
