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
	"encoding/base64"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/test/harness"
)

// TestBundlePassesOperatorFrameworkSuite runs the validators of
// `operator-sdk bundle validate --select-optional suite=operatorframework` and allows
// neither errors nor warnings: OperatorHub reviewers see the warnings too.
func TestBundlePassesOperatorFrameworkSuite(t *testing.T) {
	bundle := loadBundle(t)
	validators := validation.DefaultBundleValidators.WithValidators(
		validation.ObjectValidator,
		validation.OperatorHubV2Validator,
		validation.StandardCapabilitiesValidator,
		validation.StandardCategoriesValidator,
		validation.AlphaDeprecatedAPIsValidator,
		validation.GoodPracticesValidator,
	)

	for _, result := range validators.Validate(bundle.ObjectsToValidate()...) {
		for _, problem := range result.Errors {
			t.Errorf("Error from %s: %s", result.Name, problem)
		}
		for _, problem := range result.Warnings {
			if problem.Level == errors.LevelWarn {
				t.Errorf("Warning from %s: %s", result.Name, problem)
			}
		}
	}
}

// TestEveryExampleFieldHasADescriptor checks that the console can label and render every
// field a user sees in the examples, and every status field the operator writes.
func TestEveryExampleFieldHasADescriptor(t *testing.T) {
	bundle := loadBundle(t)
	csv := bundle.CSV

	var examples []map[string]any
	if err := json.Unmarshal([]byte(csv.Annotations["alm-examples"]), &examples); err != nil {
		t.Fatalf("alm-examples is not a JSON list of objects: %v", err)
	}
	owned := map[string]operatorsv1alpha1.CRDDescription{}
	for _, crd := range csv.Spec.CustomResourceDefinitions.Owned {
		owned[crd.Kind] = crd
	}
	if len(examples) == 0 {
		t.Fatal("alm-examples is empty")
	}

	examplesByKind := map[string]int{}
	for _, example := range examples {
		kind, _ := example["kind"].(string)
		examplesByKind[kind]++
		crd, ok := owned[kind]
		if !ok {
			t.Errorf("alm-examples has a %q, which the CSV does not own", kind)
			continue
		}
		specPaths := sets.New[string]()
		for _, descriptor := range crd.SpecDescriptors {
			specPaths.Insert(descriptor.Path)
		}
		spec, _ := example["spec"].(map[string]any)
		for _, path := range leafPaths(spec, "") {
			if !specPaths.Has(path) {
				t.Errorf("%s example field spec.%s has no spec descriptor", kind, path)
			}
		}
	}

	for _, crd := range bundle.V1CRDs {
		description := owned[crd.Spec.Names.Kind]
		if examplesByKind[crd.Spec.Names.Kind] == 0 {
			t.Errorf("owned CRD %s has no example in alm-examples", crd.Name)
		}
		statusPaths := sets.New[string]()
		for _, descriptor := range description.StatusDescriptors {
			statusPaths.Insert(descriptor.Path)
		}
		for _, version := range crd.Spec.Versions {
			status := version.Schema.OpenAPIV3Schema.Properties["status"]
			for field := range status.Properties {
				if !statusPaths.Has(field) {
					t.Errorf("%s status field %s has no status descriptor", crd.Spec.Names.Kind, field)
				}
			}
		}
	}
}

// leafPaths lists the dotted paths of the scalar fields in an example's object.
func leafPaths(object map[string]any, prefix string) []string {
	var paths []string
	for key, value := range object {
		if nested, ok := value.(map[string]any); ok {
			paths = append(paths, leafPaths(nested, prefix+key+".")...)
			continue
		}
		paths = append(paths, prefix+key)
	}
	sort.Strings(paths)
	return paths
}

// TestPermissionsAreNamespacedWherePossible checks the RBAC that OLM grants: the manager's
// rules on namespaced resources are `permissions`, which OLM grants only in the namespaces an
// OperatorGroup targets; `clusterPermissions` hold nothing but the cluster-scoped reviews
// that guard the metrics endpoint.
func TestPermissionsAreNamespacedWherePossible(t *testing.T) {
	strategy := loadCSV(t).Spec.InstallStrategy.StrategySpec

	namespaced := grantedResources(strategy.Permissions)
	for _, want := range []string{"tutorial.my.domain/foos", "tutorial.my.domain/foos/status", "/pods", "/events", "coordination.k8s.io/leases"} {
		if !namespaced.Has(want) {
			t.Errorf("permissions do not grant %s; have %v", want, sets.List(namespaced))
		}
	}

	clusterScoped := grantedResources(strategy.ClusterPermissions)
	want := sets.New("authentication.k8s.io/tokenreviews", "authorization.k8s.io/subjectaccessreviews")
	if !clusterScoped.Equal(want) {
		t.Errorf("clusterPermissions grant %v, want only %v", sets.List(clusterScoped), sets.List(want))
	}
}

func grantedResources(permissions []operatorsv1alpha1.StrategyDeploymentPermissions) sets.Set[string] {
	granted := sets.New[string]()
	for _, permission := range permissions {
		for _, rule := range permission.Rules {
			granted.Insert(ruleResources(rule)...)
		}
	}
	return granted
}

func ruleResources(rule rbacv1.PolicyRule) []string {
	resources := make([]string, 0, len(rule.APIGroups)*len(rule.Resources))
	for _, group := range rule.APIGroups {
		for _, resource := range rule.Resources {
			resources = append(resources, group+"/"+resource)
		}
	}
	return resources
}

// TestEveryInstallModeIsSupportedAndHonoured checks that the CSV offers every install mode
// and that the manager learns the OperatorGroup's target namespaces from OLM.
func TestEveryInstallModeIsSupportedAndHonoured(t *testing.T) {
	csv := loadCSV(t)
	supported := sets.New[operatorsv1alpha1.InstallModeType]()
	for _, mode := range csv.Spec.InstallModes {
		if mode.Supported {
			supported.Insert(mode.Type)
		}
	}
	for _, mode := range []operatorsv1alpha1.InstallModeType{
		operatorsv1alpha1.InstallModeTypeOwnNamespace, operatorsv1alpha1.InstallModeTypeSingleNamespace,
		operatorsv1alpha1.InstallModeTypeMultiNamespace, operatorsv1alpha1.InstallModeTypeAllNamespaces,
	} {
		if !supported.Has(mode) {
			t.Errorf("install mode %s is not supported", mode)
		}
	}

	deployments := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	if len(deployments) != 1 {
		t.Fatalf("the CSV has %d deployments, want 1", len(deployments))
	}
	var watchNamespace string
	for _, env := range deployments[0].Spec.Template.Spec.Containers[0].Env {
		if env.Name == "WATCH_NAMESPACE" && env.ValueFrom != nil && env.ValueFrom.FieldRef != nil {
			watchNamespace = env.ValueFrom.FieldRef.FieldPath
		}
	}
	if want := "metadata.annotations['olm.targetNamespaces']"; watchNamespace != want {
		t.Errorf("WATCH_NAMESPACE comes from %q, want the field %q", watchNamespace, want)
	}
}

// TestManagerContainerIsBoundedAndRestricted checks what cluster admins and OperatorHub
// expect of the manager's pod: resource requests, and the restricted security profile.
func TestManagerContainerIsBoundedAndRestricted(t *testing.T) {
	pod := loadCSV(t).Spec.InstallStrategy.StrategySpec.DeploymentSpecs[0].Spec.Template.Spec
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Error("the pod does not require a non-root user")
	}
	for _, container := range pod.Containers {
		if container.Resources.Requests.Cpu().IsZero() || container.Resources.Requests.Memory().IsZero() {
			t.Errorf("container %s requests no CPU or no memory", container.Name)
		}
		security := container.SecurityContext
		if security == nil || security.AllowPrivilegeEscalation == nil || *security.AllowPrivilegeEscalation ||
			security.Capabilities == nil || len(security.Capabilities.Drop) != 1 || security.Capabilities.Drop[0] != "ALL" {
			t.Errorf("container %s may escalate privileges or keeps capabilities", container.Name)
		}
	}
}

// TestIconIsTheProjectIcon checks that the CSV and the catalog show docs/icon.svg.
func TestIconIsTheProjectIcon(t *testing.T) {
	want := harness.ReadFile(t, repoRoot+"/docs/icon.svg")
	icons := loadCSV(t).Spec.Icon
	if len(icons) != 1 || icons[0].MediaType != "image/svg+xml" {
		t.Fatalf("the CSV has icons %v, want one image/svg+xml", icons)
	}
	got, err := base64.StdEncoding.DecodeString(icons[0].Data)
	if err != nil || string(got) != string(want) {
		t.Error("the CSV icon is not docs/icon.svg: re-encode it with `base64 -w0 docs/icon.svg`")
	}

	var pkg struct {
		Icon struct {
			Data string `json:"base64data"`
		} `json:"icon"`
	}
	if err := yaml.Unmarshal(harness.ReadFile(t, catalogDir+"/"+packageName+"/package.yaml"), &pkg); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(pkg.Icon.Data) != icons[0].Data {
		t.Error("the catalog's package icon differs from the CSV icon")
	}
}
