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
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
)

// The installers of clusters without OLM, as committed: the release in the making's in dist/,
// and every earlier release's, frozen with it under releases/.
var (
	installerFile = filepath.Join(repoRoot, "dist", "install.yaml")
	chartDir      = filepath.Join(repoRoot, "dist", "chart")
)

// helmLabels are what the chart adds to every object's labels, and kustomizeLabels what
// config/ adds: the labels of the tool that installed it, not of what it installs.
var (
	helmLabels      = []string{"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "app.kubernetes.io/version"}
	kustomizeLabels = []string{"app.kubernetes.io/managed-by"}
)

// TestChartsInstallWhatTheirInstallersInstall renders each release's Helm chart with its
// default values, as `helm install foo-operator` in the installer's namespace would, and
// checks that it makes every object of the release's install.yaml but the Namespace (`helm
// install --create-namespace` makes that), the same but for the installing tool's labels,
// the selectors (from 0.3.0 the chart's select by release, the installer's by role), the
// order of the manager's flags, a defaulted pull policy, the chart's keeping of the CRD and
// the installer's WATCH_NAMESPACE from OLM's annotation (empty without OLM, as the chart's
// is by default); and nothing else.
// So the chart, generated from the installer, cannot install something else than config/.
func TestChartsInstallWhatTheirInstallersInstall(t *testing.T) {
	helm := requireEnv(t, "HELM")
	releases, err := filepath.Glob(filepath.Join(repoRoot, "releases", "*", "install.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string][2]string{harness.MakefileVersion(t, repoRoot): {installerFile, chartDir}}
	for _, installer := range releases {
		release := filepath.Dir(installer)
		pairs[filepath.Base(release)] = [2]string{installer, filepath.Join(release, "chart")}
	}
	for version, pair := range pairs {
		t.Run(version, func(t *testing.T) {
			installer, chart := pair[0], pair[1]
			var chartMeta struct{ Version, AppVersion string }
			if err := yaml.Unmarshal(harness.ReadFile(t, filepath.Join(chart, "Chart.yaml")), &chartMeta); err != nil {
				t.Fatal(err)
			}
			if chartMeta.Version != version || chartMeta.AppVersion != version {
				t.Errorf("%s is chart version %s of app version %s, want %s", chart, chartMeta.Version, chartMeta.AppVersion, version)
			}
			lint := exec.Command(helm, "lint", "--strict", chart)
			if output, err := lint.CombinedOutput(); err != nil {
				t.Errorf("helm lint --strict %s: %v\n%s", chart, err, output)
			}

			want := decodeFile(t, installer)
			namespace := ""
			want = slices.DeleteFunc(want, func(object *unstructured.Unstructured) bool {
				if object.GetKind() == "Namespace" {
					namespace = object.GetName()
					return true
				}
				return false
			})
			if namespace == "" {
				t.Fatalf("%s makes no Namespace", installer)
			}
			// What `helm install` installs: the test hook's objects exist only during `helm test`.
			template := exec.Command(helm, "template", packageName, chart, "--namespace", namespace, "--skip-tests")
			var stderr bytes.Buffer
			template.Stderr = &stderr
			output, err := template.Output()
			if err != nil {
				t.Fatalf("helm template %s: %v\n%s", chart, err, stderr.String())
			}
			got, err := resources.Decode(bytes.NewReader(output))
			if err != nil {
				t.Fatalf("decoding what helm template rendered: %v", err)
			}
			wantObjects, gotObjects := normalized(want, kustomizeLabels), normalized(got, helmLabels)
			// The chart labels everything it makes with the app's name; config/ labels what it
			// writes by hand, not what controller-gen generates (the CRD, the manager's role).
			for key, object := range gotObjects {
				if other, ok := wantObjects[key]; ok && other.GetLabels()["app.kubernetes.io/name"] == "" {
					labels := object.GetLabels()
					delete(labels, "app.kubernetes.io/name")
					if len(labels) == 0 {
						labels = nil
					}
					object.SetLabels(labels)
				}
			}
			compareObjects(t, wantObjects, gotObjects, installer, chart)
		})
	}
}

// normalized keys objects by kind and name, without the labels named (also on a pod
// template), the chart's resource policy (which keeps the CRD on uninstall), with the
// manager's flags sorted and its image pull policy defaulted as the apiserver does.
func normalized(objects []*unstructured.Unstructured, labels []string) map[string]*unstructured.Unstructured {
	byKey := map[string]*unstructured.Unstructured{}
	for _, object := range objects {
		object = object.DeepCopy()
		for _, path := range [][]string{{"metadata", "labels"}, {"spec", "template", "metadata", "labels"}} {
			found, _, _ := unstructured.NestedStringMap(object.Object, path...)
			for _, label := range labels {
				delete(found, label)
			}
			if len(found) > 0 {
				_ = unstructured.SetNestedStringMap(object.Object, found, path...)
			} else {
				unstructured.RemoveNestedField(object.Object, path...)
			}
		}
		for _, path := range [][]string{{"spec", "selector", "matchLabels"}, {"spec", "selector"}, {"spec", "podSelector", "matchLabels"}} {
			if selector, found, _ := unstructured.NestedStringMap(object.Object, path...); found {
				delete(selector, "app.kubernetes.io/instance")
				delete(selector, "control-plane")
				_ = unstructured.SetNestedStringMap(object.Object, selector, path...)
			}
		}
		annotations := object.GetAnnotations()
		delete(annotations, "helm.sh/resource-policy")
		object.SetAnnotations(annotations)
		if object.GetKind() == "Deployment" {
			containers, _, _ := unstructured.NestedSlice(object.Object, "spec", "template", "spec", "containers")
			for _, container := range containers {
				fields, _ := container.(map[string]any)
				if args, ok := fields["args"].([]any); ok {
					slices.SortFunc(args, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
				}
				if env, ok := fields["env"].([]any); ok {
					fields["env"] = slices.DeleteFunc(env, func(variable any) bool {
						fields := variable.(map[string]any)
						return fields["name"] == "WATCH_NAMESPACE" && fields["valueFrom"] != nil
					})
				}
				// The apiserver's default, which the chart writes out.
				if _, ok := fields["imagePullPolicy"]; !ok {
					image, _ := fields["image"].(string)
					fields["imagePullPolicy"] = "IfNotPresent"
					if !strings.Contains(image, "@") && (!strings.Contains(image, ":") || strings.HasSuffix(image, ":latest")) {
						fields["imagePullPolicy"] = "Always"
					}
				}
			}
			_ = unstructured.SetNestedSlice(object.Object, containers, "spec", "template", "spec", "containers")
		}
		byKey[object.GetKind()+" "+object.GetName()] = object
	}
	return byKey
}

// compareObjects reports every object of want that got lacks or has otherwise, and every
// object got has beyond want.
func compareObjects(t *testing.T, want, got map[string]*unstructured.Unstructured, wantFrom, gotFrom string) {
	t.Helper()
	for key, object := range want {
		other, ok := got[key]
		if !ok {
			t.Errorf("%s makes %s, %s does not", wantFrom, key, gotFrom)
			continue
		}
		if !reflect.DeepEqual(object.Object, other.Object) {
			wantYAML, _ := yaml.Marshal(object.Object)
			gotYAML, _ := yaml.Marshal(other.Object)
			t.Errorf("%s differs:\n%s makes\n%s\n%s makes\n%s", key, wantFrom, wantYAML, gotFrom, gotYAML)
		}
	}
	for key := range got {
		if _, ok := want[key]; !ok {
			t.Errorf("%s makes %s, which %s does not", gotFrom, key, wantFrom)
		}
	}
}

// decodeFile decodes the objects of a multi-document YAML file.
func decodeFile(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = file.Close() }()
	objects, err := resources.Decode(file)
	if err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
	return objects
}
