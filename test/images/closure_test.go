//go:build images

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

package images

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/operator-framework/operator-registry/pkg/api"
	registryclient "github.com/operator-framework/operator-registry/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/hack/localcluster/process"
	"github.com/example/foo-operator/test/harness"
)

const packageName = "foo-operator"

// servedBundle is a bundle as the catalog image serves it over OLM's registry API.
type servedBundle struct {
	*api.Bundle
	// relatedImages are the images the catalog's olm.bundle entry lists.
	relatedImages []string
}

// TestEveryImageReachableFromTheCatalogIsPublished serves the catalog image with its own
// opm, lists its bundles over gRPC as OLM does, and checks every image reference they lead to.
func TestEveryImageReachableFromTheCatalogIsPublished(t *testing.T) {
	checkPublishedCatalog(t, env.checkout)
}

// checkPublishedCatalog checks the catalog image of the project in checkout, as published.
func checkPublishedCatalog(t *testing.T, checkout string) {
	catalogRef := env.imageTagBase + "-catalog:v" + harness.MakefileVersion(t, checkout)
	catalogRoot := extractImage(t, catalogRef, hostPlatform())
	bundles := serveCatalog(t, catalogRoot)

	wantVersions := releases(t, checkout)
	gotVersions := make([]string, 0, len(bundles))
	for _, bundle := range bundles {
		gotVersions = append(gotVersions, bundle.Version)
	}
	sort.Strings(gotVersions)
	if !slices.Equal(gotVersions, wantVersions) {
		t.Fatalf("the catalog %s serves releases %v, want %v", catalogRef, gotVersions, wantVersions)
	}

	for _, bundle := range bundles {
		t.Run(bundle.CsvName, func(t *testing.T) {
			checkBundle(t, checkout, bundle)
		})
	}
}

// checkBundle checks one catalog entry: its bundle image and every image its CSV runs.
func checkBundle(t *testing.T, checkout string, bundle servedBundle) {
	source := bundleSource(checkout, bundle.Version)
	wantBundle := env.imageTagBase + "-bundle:v" + bundle.Version
	if bundle.BundlePath != wantBundle {
		t.Errorf("the catalog names bundle image %s, want %s", bundle.BundlePath, wantBundle)
	}
	requireUnderBase(t, "the bundle image", bundle.BundlePath)
	image := pullImage(t, bundle.BundlePath, "the bundle image of the catalog entry "+bundle.CsvName)
	root := extractImage(t, bundle.BundlePath, v1.Platform{OS: "linux", Architecture: "amd64"})

	t.Run("labels equal annotations.yaml and bundle.Dockerfile", func(t *testing.T) {
		labels := configOf(t, image).Config.Labels
		var annotations struct {
			Annotations map[string]string `json:"annotations"`
		}
		readYAML(t, filepath.Join(source, "metadata", "annotations.yaml"), &annotations)
		if !reflect.DeepEqual(labels, annotations.Annotations) {
			t.Errorf("labels %v, want metadata/annotations.yaml's %v", labels, annotations.Annotations)
		}
		dockerfile, err := parseDockerfile(filepath.Join(checkout, "bundle.Dockerfile"))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(labels, dockerfile.labels) {
			t.Errorf("labels %v, want bundle.Dockerfile's %v", labels, dockerfile.labels)
		}
		for dst, src := range dockerfile.copies {
			src = strings.Replace(src, "bundle/", source+"/", 1)
			compareTrees(t, src, filepath.Join(root, dst), bundle.Version)
		}
	})

	// A catalog with olm.csv.metadata carries no whole CSV: OLM reads it from the bundle
	// image it unpacks, and so does this test.
	csvFiles, err := filepath.Glob(filepath.Join(root, "manifests", "*.clusterserviceversion.yaml"))
	if err != nil || len(csvFiles) != 1 {
		t.Fatalf("the bundle image %s holds CSVs %v, want one: %v", bundle.BundlePath, csvFiles, err)
	}
	csv := decodeCSVYAML(t, harness.ReadFile(t, csvFiles[0]))
	operatorImage := env.imageTagBase + ":v" + bundle.Version
	references := map[string]string{"its containerImage annotation": csv.containerImage}
	for i, image := range csv.deploymentImages {
		references[fmt.Sprintf("Deployment container %d", i)] = image
	}
	for i, image := range bundle.relatedImages {
		references[fmt.Sprintf("relatedImages[%d]", i)] = image
	}
	for what, reference := range references {
		if reference != operatorImage {
			t.Errorf("%s is %s, want the operator image %s", what, reference, operatorImage)
		}
		requireUnderBase(t, what, reference)
	}

	t.Run("the manager image runs", func(t *testing.T) {
		checkManagerImage(t, checkout, operatorImage, managerPlatforms(t, bundle.Version))
	})

	t.Run("opm renders the bundle image", func(t *testing.T) {
		output := runTool(t, env.opm, "render", bundle.BundlePath, "--output", "json")
		var rendered struct {
			Name  string `json:"name"`
			Image string `json:"image"`
		}
		if err := json.Unmarshal(output, &rendered); err != nil {
			t.Fatalf("reading opm render's output: %v\n%s", err, output)
		}
		if rendered.Name != bundle.CsvName || rendered.Image != bundle.BundlePath {
			t.Errorf("opm render %s gives bundle %s of image %s", bundle.BundlePath, rendered.Name, rendered.Image)
		}
	})

	t.Run("operator-sdk validates the bundle image", func(t *testing.T) {
		// operator-sdk pulls the image itself and unpacks it into its working folder.
		harness.CheckBundleValidates(t, env.operatorSDK, t.TempDir(), bundle.BundlePath,
			"--image-builder", "none", "--select-optional", "suite=operatorframework")
	})
}

// managerPlatforms are the platforms `make images` built the manager image of version for,
// sorted: as the Makefile's rule goes, RELEASES_PLATFORMS for a release frozen under
// releases/ of the checkout it ran in, PLATFORMS for the release in the making there and any
// later one (as `make test-images` sets them).
func managerPlatforms(t *testing.T, version string) []string {
	t.Helper()
	variable := "PLATFORMS"
	if _, err := os.Stat(filepath.Join(env.checkout, "releases", version)); err == nil {
		variable = "RELEASES_PLATFORMS"
	}
	value := os.Getenv(variable)
	if value == "" {
		t.Fatalf("%s is not set: run these tests with `make test-images`", variable)
	}
	platforms := strings.Split(value, ",")
	sort.Strings(platforms)
	return platforms
}

// checkManagerImage checks the operator image: an index for every one of platforms, whose
// images are what Dockerfile declares, and whose binary runs here.
func checkManagerImage(t *testing.T, checkout, reference string, want []string) {
	ref, err := name.ParseReference(reference)
	if err != nil {
		t.Fatal(err)
	}
	index, err := remote.Index(ref)
	if err != nil {
		t.Fatalf("the operator image %s is not a multi-platform index in the registry: %v", reference, err)
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var platforms []string
	for _, descriptor := range manifest.Manifests {
		if descriptor.Platform != nil {
			platforms = append(platforms, descriptor.Platform.OS+"/"+descriptor.Platform.Architecture)
		}
	}
	sort.Strings(platforms)
	if !slices.Equal(platforms, want) {
		t.Errorf("%s is built for %v, want %v", reference, platforms, want)
	}

	dockerfile, err := parseDockerfile(filepath.Join(checkout, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	image := pullImage(t, reference, "the operator image")
	config := configOf(t, image).Config
	if config.User != dockerfile.user || config.WorkingDir != dockerfile.workdir ||
		!slices.Equal(config.Entrypoint, dockerfile.entrypoint) || len(config.Cmd) != 0 {
		t.Errorf("%s runs user %q in %q: %q %q; Dockerfile declares user %q in %q: %q", reference,
			config.User, config.WorkingDir, config.Entrypoint, config.Cmd, dockerfile.user, dockerfile.workdir, dockerfile.entrypoint)
	}
	if uid, _, _ := strings.Cut(config.User, ":"); uid == "0" || uid == "" {
		t.Errorf("%s runs as root (user %q)", reference, config.User)
	}
	root := extractImage(t, reference, hostPlatform())
	for _, path := range []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/passwd"} {
		if info, err := os.Stat(filepath.Join(root, path)); err != nil || info.Size() == 0 {
			t.Errorf("%s has no %s: %v", reference, path, err)
		}
	}
	binary := filepath.Join(root, dockerfile.entrypoint[0])
	output, err := exec.Command(binary, "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(output), "-leader-elect") {
		t.Errorf("%s of %s --help: %v\n%s", dockerfile.entrypoint[0], reference, err, output)
	}
}

// TestCatalogImageIsWhatCatalogDockerfileDeclares checks the catalog image against
// catalog.Dockerfile: its configuration, and /configs holding the rendered catalog.
func TestCatalogImageIsWhatCatalogDockerfileDeclares(t *testing.T) {
	reference := env.imageTagBase + "-catalog:v" + harness.MakefileVersion(t, env.checkout)
	dockerfile, err := parseDockerfile(filepath.Join(env.checkout, "catalog.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	config := configOf(t, pullImage(t, reference, "the catalog image")).Config
	if !slices.Equal(config.Entrypoint, dockerfile.entrypoint) || !slices.Equal(config.Cmd, dockerfile.cmd) {
		t.Errorf("%s runs %q %q; catalog.Dockerfile declares %q %q", reference, config.Entrypoint, config.Cmd, dockerfile.entrypoint, dockerfile.cmd)
	}
	for key, value := range dockerfile.labels {
		if config.Labels[key] != value {
			t.Errorf("%s has label %s=%q, catalog.Dockerfile declares %q", reference, key, config.Labels[key], value)
		}
	}
	root := extractImage(t, reference, hostPlatform())
	compareTrees(t, filepath.Join(env.checkout, "catalog"), filepath.Join(root, "configs"), "")
	for _, path := range []string{"/bin/opm", "/bin/grpc_health_probe"} {
		if _, err := os.Stat(filepath.Join(root, path)); err != nil {
			t.Errorf("the catalog image's base has no %s, which catalog.Dockerfile expects: %v", path, err)
		}
	}
	for dst := range dockerfile.copies {
		if _, err := os.Stat(filepath.Join(root, dst)); err != nil {
			t.Errorf("catalog.Dockerfile copies %s, which %s lacks: %v", dst, reference, err)
		}
	}
	// operator-sdk run bundle runs `sh -c "opm serve ..."` in an index image: the base has
	// busybox's shell on PATH, as upstream's (distroless/static:debug) has.
	if target, err := os.Readlink(filepath.Join(root, "busybox", "sh")); err != nil || target != "busybox" {
		t.Errorf("the catalog image has no /busybox/sh linked to busybox (%q, %v)", target, err)
	}
	if !slices.ContainsFunc(config.Env, func(env string) bool { return strings.HasPrefix(env, "PATH=") && strings.HasSuffix(env, ":/busybox") }) {
		t.Errorf("the catalog image's PATH does not end with /busybox: %v", config.Env)
	}
}

// serveCatalog runs the catalog image's own opm on its own /configs, as the image's
// command does, and lists its bundles with operator-registry's client, as OLM does.
func serveCatalog(t *testing.T, root string) []servedBundle {
	t.Helper()
	ports, err := process.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	port := ports[0]
	logPath := filepath.Join(env.dir, "opm-serve.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = logFile.Close() }()
	serve := exec.Command(filepath.Join(root, "bin", "opm"), "serve", filepath.Join(root, "configs"),
		"--cache-dir", filepath.Join(root, "tmp", "cache"), "--port", strconv.Itoa(port))
	serve.Stdout, serve.Stderr = logFile, logFile
	if err := serve.Start(); err != nil {
		t.Fatalf("starting the catalog image's opm: %v", err)
	}
	t.Cleanup(func() { _ = serve.Process.Kill(); _ = serve.Wait() })

	address := "127.0.0.1:" + strconv.Itoa(port)
	client, err := registryclient.NewClient(address)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var lastErr error
	for {
		healthy, err := client.HealthCheck(ctx, time.Second)
		if healthy {
			break
		}
		lastErr = err
		select {
		case <-ctx.Done():
			t.Fatalf("the catalog image's opm serve never became healthy at %s: %v; %s", address, lastErr, process.Tail(logPath, 20))
		case <-time.After(200 * time.Millisecond):
		}
	}
	iterator, err := client.ListBundles(ctx)
	if err != nil {
		t.Fatalf("listing the catalog's bundles: %v", err)
	}
	related := relatedImagesOf(t, filepath.Join(root, "configs"))
	var bundles []servedBundle
	for bundle := iterator.Next(); bundle != nil; bundle = iterator.Next() {
		if bundle.PackageName == packageName {
			bundles = append(bundles, servedBundle{Bundle: bundle, relatedImages: related[bundle.CsvName]})
		}
	}
	if err := iterator.Error(); err != nil {
		t.Fatalf("listing the catalog's bundles: %v", err)
	}
	return bundles
}

// relatedImagesOf reads the relatedImages of each olm.bundle of the catalog in dir.
func relatedImagesOf(t *testing.T, dir string) map[string][]string {
	t.Helper()
	related := map[string][]string{}
	files, err := filepath.Glob(filepath.Join(dir, packageName, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		for _, document := range bytes.Split(harness.ReadFile(t, file), []byte("\n---\n")) {
			var object struct {
				Schema        string `json:"schema"`
				Name          string `json:"name"`
				RelatedImages []struct {
					Image string `json:"image"`
				} `json:"relatedImages"`
			}
			if err := yaml.Unmarshal(document, &object); err != nil {
				t.Fatalf("reading %s: %v", file, err)
			}
			for _, image := range object.RelatedImages {
				related[object.Name] = append(related[object.Name], image.Image)
			}
		}
	}
	return related
}

// csvImages are the image references of a ClusterServiceVersion.
type csvImages struct {
	containerImage   string
	deploymentImages []string
}

func decodeCSV(t *testing.T, data []byte) csvImages {
	t.Helper()
	var csv struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			Install struct {
				Spec struct {
					Deployments []struct {
						Spec struct {
							Template struct {
								Spec struct {
									InitContainers []struct{ Image string } `json:"initContainers"`
									Containers     []struct{ Image string } `json:"containers"`
								} `json:"spec"`
							} `json:"template"`
						} `json:"spec"`
					} `json:"deployments"`
				} `json:"spec"`
			} `json:"install"`
			RelatedImages []struct{ Image string } `json:"relatedImages"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(data, &csv); err != nil {
		t.Fatalf("decoding the served CSV: %v", err)
	}
	images := csvImages{containerImage: csv.Metadata.Annotations["containerImage"]}
	for _, deployment := range csv.Spec.Install.Spec.Deployments {
		for _, c := range append(deployment.Spec.Template.Spec.InitContainers, deployment.Spec.Template.Spec.Containers...) {
			images.deploymentImages = append(images.deploymentImages, c.Image)
		}
	}
	for _, related := range csv.Spec.RelatedImages {
		images.deploymentImages = append(images.deploymentImages, related.Image)
	}
	return images
}

// bundleSource is the folder the bundle of a release was built from: its folder under
// releases/ for an earlier release, bundle/ for the newest.
func bundleSource(checkout, version string) string {
	released := filepath.Join(checkout, "releases", version)
	if _, err := os.Stat(released); err == nil {
		return released
	}
	return filepath.Join(checkout, "bundle")
}

// compareTrees checks that the files under got are those under want, byte for byte, but
// for the CSV of an earlier release: its image references are where the release was
// published, so the CSV must equal the released one in all else.
func compareTrees(t *testing.T, want, got, version string) {
	t.Helper()
	wantFiles, gotFiles := listFiles(t, want), listFiles(t, got)
	delete(wantFiles, "source-commit")
	for path, wantData := range wantFiles {
		gotData, ok := gotFiles[path]
		switch {
		case !ok:
			t.Errorf("%s is missing from the image (want it as in %s)", filepath.Join(got, path), want)
		case strings.HasSuffix(path, ".clusterserviceversion.yaml") && version != "":
			if !sameCSVButImages(t, wantData, gotData) {
				t.Errorf("the image's %s differs from %s in more than its image references", path, filepath.Join(want, path))
			}
		case !bytes.Equal(wantData, gotData):
			t.Errorf("the image's %s differs from %s", path, filepath.Join(want, path))
		}
	}
	for path := range gotFiles {
		if _, ok := wantFiles[path]; !ok {
			t.Errorf("the image has %s, which %s lacks", path, want)
		}
	}
}

// sameCSVButImages compares two CSVs with the operator image blanked in both.
func sameCSVButImages(t *testing.T, a, b []byte) bool {
	t.Helper()
	blank := func(data []byte) string {
		images := decodeCSVYAML(t, data)
		out := string(data)
		for _, image := range append([]string{images.containerImage}, images.deploymentImages...) {
			out = strings.ReplaceAll(out, image, "OPERATOR_IMAGE")
		}
		return out
	}
	return blank(a) == blank(b)
}

func decodeCSVYAML(t *testing.T, data []byte) csvImages {
	t.Helper()
	jsonData, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	return decodeCSV(t, jsonData)
}

func listFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, entry os.DirEntry, err error) error {
		if err != nil || entry.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files[rel], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	return files
}

// requireUnderBase fails unless reference is a repository of IMAGE_TAG_BASE's.
func requireUnderBase(t *testing.T, what, reference string) {
	t.Helper()
	if !strings.HasPrefix(reference, env.imageTagBase) {
		t.Errorf("%s %s is not under IMAGE_TAG_BASE %s: a cluster would pull it from elsewhere", what, reference, env.imageTagBase)
	}
}

// pullImage fetches the image reference (for an index, this machine's platform's image).
func pullImage(t *testing.T, reference, what string) v1.Image {
	t.Helper()
	ref, err := name.ParseReference(reference)
	if err != nil {
		t.Fatal(err)
	}
	image, err := remote.Image(ref, remote.WithPlatform(hostPlatform()))
	if err != nil {
		t.Fatalf("%s %s is not in the registry: %v", what, reference, err)
	}
	return image
}

func configOf(t *testing.T, image v1.Image) *v1.ConfigFile {
	t.Helper()
	config, err := image.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	return config
}

func hostPlatform() v1.Platform { return v1.Platform{OS: "linux", Architecture: runtime.GOARCH} }

// runTool runs a tool in a folder of its own, with a home whose containers policy accepts
// any image, and returns what it printed to stdout; it fails the test, with what the tool said,
// if the tool fails.
func runTool(t *testing.T, tool string, args ...string) []byte {
	t.Helper()
	output, err := process.RunTool(t.Context(), t.TempDir(), append(os.Environ(), "HOME="+containersHome(t)), tool, args...)
	if err != nil {
		t.Fatal(err)
	}
	return output.Stdout
}

func readYAML(t *testing.T, path string, into any) {
	t.Helper()
	if err := yaml.Unmarshal(harness.ReadFile(t, path), into); err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
}

// releases lists every release the catalog should serve: the earlier ones under
// releases/ and the Makefile's VERSION.
func releases(t *testing.T, checkout string) []string {
	t.Helper()
	earlier, newest, err := harness.Releases(checkout)
	if err != nil {
		t.Fatal(err)
	}
	return append(earlier, newest)
}

// extractImage writes the filesystem of the image reference (for platform) into a
// temporary folder and returns it.
func extractImage(t *testing.T, reference string, platform v1.Platform) string {
	t.Helper()
	ref, err := name.ParseReference(reference)
	if err != nil {
		t.Fatal(err)
	}
	image, err := remote.Image(ref, remote.WithPlatform(platform))
	if err != nil {
		t.Fatalf("%s is not in the registry: %v", reference, err)
	}
	root := t.TempDir()
	if err := untar(image, root); err != nil {
		t.Fatalf("extracting %s: %v", reference, err)
	}
	return root
}

// containersHome returns a home folder whose containers policy accepts any image, for the
// tools that pull with containers/image (opm render): the machine may have no policy.json,
// and the test changes nothing of the machine's.
func containersHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "containers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	policy := `{"default":[{"type":"insecureAcceptAnything"}]}`
	if err := os.WriteFile(filepath.Join(dir, "policy.json"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}
