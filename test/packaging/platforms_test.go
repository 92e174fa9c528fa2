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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
)

// The manager image is built for the Makefile's PLATFORMS. OLM and OperatorHub learn them from
// the CSV's labels, and the manager's pod is kept to them by its required node affinity: these
// tests check both against PLATFORMS, in bundle/, in install.yaml (and so in the chart, which
// TestChartsInstallWhatTheirInstallersInstall holds to it), and in what `make bundle` makes of
// another PLATFORMS.

const (
	archLabelPrefix = "operatorframework.io/arch."
	osLabelPrefix   = "operatorframework.io/os."
)

// TestBundleDeclaresTheManagerImagePlatforms runs `operator-sdk bundle validate --select-optional
// name=multiarch`, which compares the CSV's labels and the manager's node affinity with the
// platforms of the manager image, and allows neither errors nor warnings; and checks the labels
// itself too, since the validator takes a CSV without an os label for a linux one.
func TestBundleDeclaresTheManagerImagePlatforms(t *testing.T) {
	operatorSDK := requireEnv(t, "OPERATOR_SDK")
	platforms := makefilePlatforms(t)
	answerImageInspections(t, platforms)
	harness.CheckBundleValidates(t, operatorSDK, "", bundleDir, "--select-optional", "name=multiarch")

	csv := loadCSV(t)
	checkPlatformLabels(t, "the CSV of "+bundleDir, csv.Labels, platforms)
	for _, deployment := range csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs {
		checkNodeAffinity(t, "the CSV's Deployment "+deployment.Name, deployment.Spec.Template.Spec, platforms)
	}
}

// TestInstallerKeepsTheManagerOnItsPlatforms checks the node affinity config/manager gives the
// manager, which `make bundle` replaces with PLATFORMS' but install.yaml and the chart keep: it
// must be the default PLATFORMS'.
func TestInstallerKeepsTheManagerOnItsPlatforms(t *testing.T) {
	platforms := makefilePlatforms(t)
	found := false
	for _, object := range decodeFile(t, installerFile) {
		if object.GetKind() != "Deployment" {
			continue
		}
		found = true
		checkNodeAffinity(t, installerFile+"'s Deployment "+object.GetName(), toDeployment(t, object).Spec.Template.Spec, platforms)
	}
	if !found {
		t.Fatalf("%s has no Deployment", installerFile)
	}
}

// TestBundlePlatformsFollowPLATFORMS renders the overlay `make bundle` hands operator-sdk with
// platforms other than the default, into a folder of the test's own, and checks that the CSV's
// labels and the manager's affinity are theirs: a bundle/ whose labels were written by hand would
// pass the tests above, but not follow `make bundle PLATFORMS=...`.
func TestBundlePlatformsFollowPLATFORMS(t *testing.T) {
	kustomize := requireEnv(t, "KUSTOMIZE")
	platforms := []string{"linux/ppc64le", "linux/s390x"}
	overlay := t.TempDir()
	writeOverlay := exec.Command("make", "--no-print-directory", "bundle-overlay",
		"PLATFORMS="+strings.Join(platforms, ","), "BUNDLE_OVERLAY="+overlay)
	writeOverlay.Dir = repoRoot
	if output, err := writeOverlay.CombinedOutput(); err != nil {
		t.Fatalf("make bundle-overlay: %v\n%s", err, output)
	}
	build := exec.Command(kustomize, "build", overlay)
	var stderr bytes.Buffer
	build.Stderr = &stderr
	output, err := build.Output()
	if err != nil {
		t.Fatalf("kustomize build of the bundle's overlay: %v\n%s", err, stderr.String())
	}
	objects, err := resources.Decode(bytes.NewReader(output))
	if err != nil {
		t.Fatalf("decoding the bundle's overlay: %v", err)
	}
	kinds := map[string]int{}
	for _, object := range objects {
		switch object.GetKind() {
		case "ClusterServiceVersion":
			checkPlatformLabels(t, "the overlay's CSV", object.GetLabels(), platforms)
		case "Deployment":
			checkNodeAffinity(t, "the overlay's Deployment "+object.GetName(), toDeployment(t, object).Spec.Template.Spec, platforms)
		default:
			continue
		}
		kinds[object.GetKind()]++
	}
	if kinds["ClusterServiceVersion"] != 1 || kinds["Deployment"] != 1 {
		t.Errorf("the bundle's overlay makes %v, want one ClusterServiceVersion and one Deployment", kinds)
	}
}

// makefilePlatforms returns, sorted, the platforms (os/arch) the Makefile builds the manager
// image for unless told otherwise: PLATFORMS, which the committed files were generated with.
func makefilePlatforms(t *testing.T) []string {
	t.Helper()
	for _, line := range strings.Split(string(harness.ReadFile(t, filepath.Join(repoRoot, "Makefile"))), "\n") {
		if value, ok := strings.CutPrefix(line, "PLATFORMS ?= "); ok {
			platforms := strings.Split(strings.TrimSpace(value), ",")
			slices.Sort(platforms)
			return platforms
		}
	}
	t.Fatal("the Makefile sets no PLATFORMS")
	return nil
}

// answerImageInspections puts first on the PATH, for the rest of the test, a docker that tells
// the multiarch validator that every image it inspects is an index of platforms (os/arch): what
// the registry would say of the manager image `make docker-build` builds for PLATFORMS. The
// validator learns an image's platforms only from `docker pull` and `docker manifest inspect`
// (podman's, or "none", which is docker too), and the image bundle/ names is pushed nowhere:
// without answers it warns of every image it could not inspect, and then of the affinity too.
func answerImageInspections(t *testing.T, platforms []string) {
	t.Helper()
	type platform struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
	}
	type manifest struct {
		Platform platform `json:"platform"`
	}
	var index struct {
		Manifests []manifest `json:"manifests"`
	}
	for _, each := range platforms {
		system, arch, _ := strings.Cut(each, "/")
		index.Manifests = append(index.Manifests, manifest{Platform: platform{OS: system, Architecture: arch}})
	}
	indexJSON, err := json.Marshal(index)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	indexFile := filepath.Join(dir, "index.json")
	script := "#!/bin/sh\n" +
		"# The multiarch validator's docker: every image is there, with the index the test wrote.\n" +
		"case \"$1\" in\n" +
		"pull) ;;\n" +
		"manifest) exec cat '" + indexFile + "' ;;\n" +
		"*) echo \"docker $*: the test's docker answers only pull and manifest inspect\" >&2; exit 1 ;;\n" +
		"esac\n"
	if err := os.WriteFile(indexFile, indexJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// checkPlatformLabels checks that the labels of what declare, "supported", an
// operatorframework.io/arch.<arch> and an os.<os> for the arches and the OSes of platforms,
// and no other.
func checkPlatformLabels(t *testing.T, what string, labels map[string]string, platforms []string) {
	t.Helper()
	want := map[string]string{}
	for _, platform := range platforms {
		system, arch, _ := strings.Cut(platform, "/")
		want[archLabelPrefix+arch] = "supported"
		want[osLabelPrefix+system] = "supported"
	}
	got := map[string]string{}
	for key, value := range labels {
		if strings.HasPrefix(key, archLabelPrefix) || strings.HasPrefix(key, osLabelPrefix) {
			got[key] = value
		}
	}
	expect(t, what+"'s platform labels", got, want)
}

// checkNodeAffinity checks that pod, of what, may run only on nodes of platforms (os/arch): its
// required node affinity admits each of them, and nothing else.
func checkNodeAffinity(t *testing.T, what string, pod corev1.PodSpec, platforms []string) {
	t.Helper()
	var admitted []string
	if pod.Affinity != nil && pod.Affinity.NodeAffinity != nil &&
		pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range pod.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			admitted = append(admitted, admittedPlatforms(term)...)
		}
	}
	slices.Sort(admitted)
	expect(t, what+"'s pod may run on", slices.Compact(admitted), platforms)
}

// admittedPlatforms lists the platforms (os/arch) a node selector term admits by its
// kubernetes.io/os and kubernetes.io/arch expressions; none where it leaves either open, which
// would let the pod onto a node the image cannot run on.
func admittedPlatforms(term corev1.NodeSelectorTerm) []string {
	var oses, arches []string
	for _, expression := range term.MatchExpressions {
		if expression.Operator != corev1.NodeSelectorOpIn {
			continue
		}
		switch expression.Key {
		case corev1.LabelOSStable:
			oses = expression.Values
		case corev1.LabelArchStable:
			arches = expression.Values
		}
	}
	platforms := make([]string, 0, len(oses)*len(arches))
	for _, system := range oses {
		for _, arch := range arches {
			platforms = append(platforms, system+"/"+arch)
		}
	}
	return platforms
}

func toDeployment(t *testing.T, object *unstructured.Unstructured) *appsv1.Deployment {
	t.Helper()
	deployment := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, deployment); err != nil {
		t.Fatalf("Deployment %s: %v", object.GetName(), err)
	}
	return deployment
}
