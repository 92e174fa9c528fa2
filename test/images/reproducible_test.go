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
	"archive/tar"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/example/foo-operator/test/harness"
)

// TestOneCommitBuildsTheSameImagesAnywhereAnytime builds every image of every release and
// every chart again, with CONTAINER_TOOL=imagebuilder, in a copy of the project in another
// folder, minutes after `make test-images` built them, and expects the same digest for each:
// the manager's index and each platform's image, each bundle, the catalog, each chart's
// package and the chart's manifest as `helm push` pushes it.
func TestOneCommitBuildsTheSameImagesAnywhereAnytime(t *testing.T) {
	elsewhere := filepath.Join(t.TempDir(), "another", "folder", "project")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	runIn(t, "", "sh", "-c", `tar -C "$0" -c --exclude=./bin . | tar -x -C "$1"`, env.checkout, elsewhere)
	store := filepath.Join(t.TempDir(), "store")
	start := time.Now()
	build := exec.Command("make", "--no-print-directory", "images", "CONTAINER_TOOL=imagebuilder", "IMAGE_STORE="+store)
	build.Dir = elsewhere
	if output, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make images in %s: %v\n%s", elsewhere, err, output)
	}
	t.Logf("Built every image again in %s in %.1fs", elsewhere, time.Since(start).Seconds())

	first, again := openStore(t, filepath.Join(os.Getenv("IMAGE_TEST_DIR"), "store")), openStore(t, store)
	compared := 0
	for ref, digest := range again.digests {
		if !strings.HasPrefix(ref, env.imageTagBase) {
			continue // the opm base image, which the catalog is built on, is not published
		}
		switch {
		case first.digests[ref] == "":
			t.Errorf("the first build has no %s", ref)
		case first.digests[ref] != digest:
			// opm's serve cache, which catalog.Dockerfile builds into the catalog image, is a
			// pogreb database: pogreb seeds its hash with a random number each time it
			// creates one, so its files differ from build to build. Nothing else may.
			differ := differingFiles(t, first.image(t, ref), again.image(t, ref))
			if unexplained := slices.DeleteFunc(slices.Clone(differ), func(file string) bool {
				return strings.HasPrefix(file, "tmp/cache/pogreb.v1/")
			}); len(unexplained) > 0 || len(differ) == 0 {
				t.Errorf("%s is %s, and %s when built again elsewhere; files that differ: %v", ref, first.digests[ref], digest, differ)
				continue
			}
			t.Logf("%s differs from build to build only in opm's cache, whose hash seed is random: %v", ref, differ)
		default:
			compared++
		}
	}

	// The charts: each package, then the manifest `helm push` makes of it, pushed to a
	// repository of its own.
	repository := "oci://" + strings.SplitN(env.imageTagBase, "/", 2)[0] + "/reproduced/charts"
	for _, version := range releases(t, env.checkout) {
		archive := packageName + "-" + version + ".tgz"
		want := harness.ReadFile(t, filepath.Join(env.checkout, "bin", "charts", archive))
		got := harness.ReadFile(t, filepath.Join(elsewhere, "bin", "charts", archive))
		if string(want) != string(got) {
			t.Errorf("the chart package %s differs when built again elsewhere", archive)
			continue
		}
		push := exec.Command("make", "--no-print-directory", "chart-push", "VERSION="+version, "CHART_REPO="+repository)
		push.Dir = elsewhere
		if output, err := push.CombinedOutput(); err != nil {
			t.Fatalf("make chart-push VERSION=%s CHART_REPO=%s: %v\n%s", version, repository, err, output)
		}
		published, reproduced := imageDigest(t, chartReference(chartRepository(), version)), imageDigest(t, chartReference(repository, version))
		if published != reproduced {
			t.Errorf("the chart %s was pushed as %s, and as %s when built again elsewhere", version, published, reproduced)
			continue
		}
		compared++
	}
	if compared == 0 {
		t.Fatal("no image was compared")
	}
	t.Logf("%d images and charts have the same digest when built again elsewhere", compared)
}

// imageStore is an OCI image layout imagebuilder keeps its images in, and the digest of each
// reference it holds.
type imageStore struct {
	layout  layout.Path
	digests map[string]string
}

func openStore(t *testing.T, dir string) imageStore {
	t.Helper()
	path, err := layout.FromPath(dir)
	if err != nil {
		t.Fatalf("opening the image store %s: %v", dir, err)
	}
	index, err := path.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	store := imageStore{layout: path, digests: map[string]string{}}
	for _, descriptor := range manifest.Manifests {
		store.digests[descriptor.Annotations["org.opencontainers.image.ref.name"]] = descriptor.Digest.String()
	}
	return store
}

// image is the single-platform image of reference in the store.
func (s imageStore) image(t *testing.T, reference string) v1.Image {
	t.Helper()
	hash, err := v1.NewHash(s.digests[reference])
	if err != nil {
		t.Fatal(err)
	}
	image, err := s.layout.Image(hash)
	if err != nil {
		t.Fatalf("%s differs when built again, and is not one image to compare file by file: %v", reference, err)
	}
	return image
}

// differingFiles lists the files whose content, mode or kind differ between two images, or
// that only one holds.
func differingFiles(t *testing.T, a, b v1.Image) []string {
	t.Helper()
	filesA, filesB := fileSums(t, a), fileSums(t, b)
	var differ []string
	for file, sum := range filesA {
		if filesB[file] != sum {
			differ = append(differ, file)
		}
	}
	for file := range filesB {
		if _, ok := filesA[file]; !ok {
			differ = append(differ, file)
		}
	}
	slices.Sort(differ)
	return differ
}

// fileSums maps each entry of an image's flattened filesystem to its kind, mode, link and
// content digest.
func fileSums(t *testing.T, image v1.Image) map[string]string {
	t.Helper()
	reader := mutate.Extract(image)
	defer func() { _ = reader.Close() }()
	archive := tar.NewReader(reader)
	sums := map[string]string{}
	for {
		header, err := archive.Next()
		if errors.Is(err, io.EOF) {
			return sums
		}
		if err != nil {
			t.Fatal(err)
		}
		content := sha256.New()
		if _, err := io.Copy(content, archive); err != nil { //nolint:gosec // the project's own images
			t.Fatal(err)
		}
		sums[strings.TrimPrefix(header.Name, "/")] = fmt.Sprintf("%c %o %s %x %s",
			header.Typeflag, header.Mode, header.Linkname, content.Sum(nil), header.ModTime.UTC())
	}
}

// chartReference is the OCI reference of the chart of version in the charts' repository.
func chartReference(repository, version string) string {
	return strings.TrimPrefix(repository, "oci://") + "/" + packageName + ":" + version
}

// chartRepository is CHART_REPO of the image tests: charts beside the images.
func chartRepository() string {
	return "oci://" + env.imageTagBase[:strings.LastIndex(env.imageTagBase, "/")] + "/charts"
}
