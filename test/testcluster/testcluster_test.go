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

package testcluster

import (
	"reflect"
	"strings"
	"testing"

	"github.com/example/foo-operator/hack/localcluster"
)

func TestLabelFilterLeavesOutWhatTheProviderLacks(t *testing.T) {
	existing := ExistingProvider{Kubeconfig: "/kubeconfig", Registry: "registry.example.com"}
	for _, test := range []struct {
		name, filter, want string
	}{
		{"no filter", "", "!apiserver-restart && !audit-log && !container-kill && !node-cgroups && !node-restart && !partition && " +
			"!pod-network && !registry-mirror"},
		{"a filter of the user's", "deploy || catalog", "(deploy || catalog) && !apiserver-restart && !audit-log && " +
			"!container-kill && !node-cgroups && !node-restart && !partition && !pod-network && !registry-mirror"},
	} {
		t.Run(test.name, func(t *testing.T) {
			filter, reasons := LabelFilter(existing, test.filter)
			if filter != test.want {
				t.Errorf("filter = %q, want %q", filter, test.want)
			}
			if len(reasons) != len(AllCapabilities()) {
				t.Fatalf("%d reasons for %d capabilities left out: %q", len(reasons), len(AllCapabilities()), reasons)
			}
			for _, reason := range reasons {
				if !strings.Contains(reason, "KUBECONFIG=/kubeconfig") || !strings.Contains(reason, "offers no way to") {
					t.Errorf("the reason %q names neither the cluster nor what it cannot do", reason)
				}
			}
		})
	}
}

func TestLocalProviderLeavesOutNothing(t *testing.T) {
	local := LocalProvider{Options: localcluster.Options{Dir: "/cluster",
		APIServerFlags: map[string]string{"audit-log-path": "/cluster/logs/audit.jsonl"}}}
	filter, reasons := LabelFilter(local, "faults")
	if filter != "faults" || len(reasons) != 0 {
		t.Errorf("the local cluster left out %q (filter %q)", reasons, filter)
	}
	withoutAudit := LocalProvider{Options: localcluster.Options{Dir: "/cluster"}}
	if filter, _ := LabelFilter(withoutAudit, ""); filter != "!audit-log" {
		t.Errorf("a local cluster without an audit log: filter %q, want !audit-log", filter)
	}
}

func TestExistingFromEnvNamesWhatIsMissing(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("REGISTRY", "")
	_, err := ExistingFromEnv("", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "KUBECONFIG") || !strings.Contains(err.Error(), "REGISTRY") {
		t.Errorf("error %v names neither KUBECONFIG nor REGISTRY", err)
	}
	t.Setenv("KUBECONFIG", "/a:/b")
	t.Setenv("REGISTRY", "registry.example.com")
	if _, err := ExistingFromEnv("", t.TempDir()); err == nil || !strings.Contains(err.Error(), "one kubeconfig") {
		t.Errorf("a KUBECONFIG of two files: error %v", err)
	}
}

func TestFromEnvChoosesByUseExistingCluster(t *testing.T) {
	local := localcluster.Options{Dir: "/cluster", Node: true, Registry: true}
	t.Setenv("KUBECONFIG", "/kubeconfig")
	t.Setenv("REGISTRY", "registry.example.com")
	for value, want := range map[string]string{"": "LocalProvider", "false": "LocalProvider", "true": "ExistingProvider"} {
		t.Setenv("USE_EXISTING_CLUSTER", value)
		provider, err := FromEnv(local, t.TempDir())
		if err != nil {
			t.Fatalf("USE_EXISTING_CLUSTER=%q: %v", value, err)
		}
		if got := reflect.TypeOf(provider).Name(); got != want {
			t.Errorf("USE_EXISTING_CLUSTER=%q gave a %s, want a %s", value, got, want)
		}
	}
	t.Setenv("USE_EXISTING_CLUSTER", "yes")
	if _, err := FromEnv(local, t.TempDir()); err == nil || !strings.Contains(err.Error(), "USE_EXISTING_CLUSTER=yes") {
		t.Errorf("USE_EXISTING_CLUSTER=yes: error %v, want one naming the value", err)
	}
}

func TestAsNamesTheMissingCapability(t *testing.T) {
	var cluster Cluster = &existing{}
	if _, err := As[NodeRestarter](cluster, NodeRestart); err == nil || !strings.Contains(err.Error(), `"node-restart"`) {
		t.Errorf("error %v does not name the capability", err)
	}
	if _, err := As[NodeRestarter](&Local{}, NodeRestart); err != nil {
		t.Errorf("a local cluster: %v", err)
	}
}
