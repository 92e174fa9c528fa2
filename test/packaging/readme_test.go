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
	"regexp"
	"strings"
	"testing"

	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/test/harness"
)

// TestCatalogPageInstallsFromTheCatalog checks that the install YAML of
// docs/install-olm-catalog.md (the documents it applies with `kubectl apply -f - <<EOF`)
// decodes strictly as OLM's types, and that the Subscription finds this package's channel in
// the CatalogSource it shows.
func TestCatalogPageInstallsFromTheCatalog(t *testing.T) {
	page := string(harness.ReadFile(t, repoRoot+"/docs/install-olm-catalog.md"))
	blocks := regexp.MustCompile("(?s)kubectl apply -f - <<EOF\n(.*?\n)EOF\n").FindAllStringSubmatch(page, -1)

	var (
		catalogSource *operatorsv1alpha1.CatalogSource
		subscription  *operatorsv1alpha1.Subscription
		operatorGroup *operatorsv1.OperatorGroup
	)
	for _, block := range blocks {
		for _, document := range strings.Split(block[1], "\n---\n") {
			var kind struct {
				Kind string `json:"kind"`
			}
			if err := yaml.Unmarshal([]byte(document), &kind); err != nil {
				t.Fatalf("docs/install-olm-catalog.md's YAML does not parse: %v\n%s", err, document)
			}
			var target any
			switch kind.Kind {
			case "CatalogSource":
				catalogSource = &operatorsv1alpha1.CatalogSource{}
				target = catalogSource
			case "Subscription":
				subscription = &operatorsv1alpha1.Subscription{}
				target = subscription
			case "OperatorGroup":
				operatorGroup = &operatorsv1.OperatorGroup{}
				target = operatorGroup
			default:
				continue
			}
			if err := yaml.UnmarshalStrict([]byte(document), target); err != nil {
				t.Errorf("docs/install-olm-catalog.md's %s is not valid: %v", kind.Kind, err)
			}
		}
	}
	if catalogSource == nil || subscription == nil || operatorGroup == nil {
		t.Fatal("docs/install-olm-catalog.md does not show a CatalogSource, an OperatorGroup and a Subscription")
	}

	spec := subscription.Spec
	if spec.Package != packageName || spec.Channel != "stable" {
		t.Errorf("the Subscription follows package %q channel %q, want %q channel stable", spec.Package, spec.Channel, packageName)
	}
	if spec.CatalogSource != catalogSource.Name || spec.CatalogSourceNamespace != catalogSource.Namespace {
		t.Errorf("the Subscription names catalog %s/%s, but the CatalogSource is %s/%s",
			spec.CatalogSourceNamespace, spec.CatalogSource, catalogSource.Namespace, catalogSource.Name)
	}
	if operatorGroup.Namespace != subscription.Namespace {
		t.Errorf("the OperatorGroup is in %q, the Subscription in %q", operatorGroup.Namespace, subscription.Namespace)
	}
}
