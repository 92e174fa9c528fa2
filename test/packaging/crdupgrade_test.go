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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// crdFile is the Foo CRD as `make manifests` generates it from api/.
var crdFile = filepath.Join(repoRoot, "config", "crd", "bases", "tutorial.my.domain_foos.yaml")

// releasedCRDs are the Foo CRDs of every earlier release.
func releasedCRDs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "releases", "*", "manifests", "tutorial.my.domain_foos.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no released CRD under releases/ (%v)", err)
	}
	return files
}

// checkCRDUpgrade runs `make crd-upgrade-safety`'s check (OLM v1's CRD upgrade safety
// preflight) of an upgrade from every earlier release to the CRD in newFile.
func checkCRDUpgrade(t *testing.T, newFile string) (string, error) {
	t.Helper()
	check := requireEnv(t, "CRD_UPGRADE_SAFETY")
	output, err := exec.Command(check, append([]string{"--new", newFile}, releasedCRDs(t)...)...).CombinedOutput()
	return string(output), err
}

func TestTheCRDCanReplaceEveryReleasedOne(t *testing.T) {
	if output, err := checkCRDUpgrade(t, crdFile); err != nil {
		t.Fatalf("OLM v1 would refuse to upgrade an installed release to this CRD: %v\n%s", err, output)
	}
}

// TestTheCRDUpgradeCheckRefusesWhatWouldStrandUsers changes a scratch copy of the CRD the
// ways that OLM v1 refuses to upgrade to (and one way it accepts), so the gate of `make
// verify` is known to fail when it must, with the preflight's own message.
func TestTheCRDUpgradeCheckRefusesWhatWouldStrandUsers(t *testing.T) {
	for _, change := range []struct {
		name   string
		change func(spec *apiextensionsv1.JSONSchemaProps, crd *apiextensionsv1.CustomResourceDefinition)
		// refusal is a part of the preflight's message; empty means the change is safe.
		refusal string
	}{{
		name: "a new optional field is safe",
		change: func(spec *apiextensionsv1.JSONSchemaProps, _ *apiextensionsv1.CustomResourceDefinition) {
			spec.Properties["nickname"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
		},
	}, {
		name: "a new required field is refused: existing Foos lack it",
		change: func(spec *apiextensionsv1.JSONSchemaProps, _ *apiextensionsv1.CustomResourceDefinition) {
			spec.Properties["nickname"] = apiextensionsv1.JSONSchemaProps{Type: "string"}
			spec.Required = append(spec.Required, "nickname")
		},
		refusal: "new required fields: [nickname]",
	}, {
		name: "a shorter maximum length of spec.name is refused: existing names may be longer",
		change: func(spec *apiextensionsv1.JSONSchemaProps, _ *apiextensionsv1.CustomResourceDefinition) {
			name := spec.Properties["name"]
			name.MaxLength = ptr.To[int64](63)
			spec.Properties["name"] = name
		},
		refusal: "maxLength: maximum decreased",
	}, {
		name: "a narrower pattern of spec.name is refused: existing names may not match it",
		change: func(spec *apiextensionsv1.JSONSchemaProps, _ *apiextensionsv1.CustomResourceDefinition) {
			name := spec.Properties["name"]
			name.Pattern = "^[a-z]+$"
			spec.Properties["name"] = name
		},
		refusal: "^.spec.name",
	}, {
		name: "dropping v1, the stored version, is refused: the Foos stored in it would be lost",
		change: func(_ *apiextensionsv1.JSONSchemaProps, crd *apiextensionsv1.CustomResourceDefinition) {
			crd.Spec.Versions[0].Name = "v2"
		},
		refusal: "stored versions removed",
	}} {
		t.Run(change.name, func(t *testing.T) {
			crd := readCRD(t, crdFile)
			schema := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
			spec := schema.Properties["spec"]
			change.change(&spec, crd)
			schema.Properties["spec"] = spec
			scratch := filepath.Join(t.TempDir(), "crd.yaml")
			data, err := yaml.Marshal(crd)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(scratch, data, 0o644); err != nil {
				t.Fatal(err)
			}
			output, err := checkCRDUpgrade(t, scratch)
			switch {
			case change.refusal == "" && err != nil:
				t.Errorf("refused a safe change: %v\n%s", err, output)
			case change.refusal != "" && err == nil:
				t.Errorf("accepted an unsafe change:\n%s", output)
			case change.refusal != "" && !strings.Contains(output, change.refusal):
				t.Errorf("refused it, but without saying %q:\n%s", change.refusal, output)
			}
		})
	}
}

func readCRD(t *testing.T, path string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil {
		t.Fatalf("%s: expected one version with a schema, found %d versions", path, len(crd.Spec.Versions))
	}
	return crd
}
