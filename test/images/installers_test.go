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
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
)

// TestEveryReleaseInstallsWithoutOLMFromWhatIsPublished checks, for every release, the two
// installers of clusters without OLM as a user gets them once `make images-push` has
// published: the Helm chart pulled from CHART_REPO, and the install.yaml `make
// build-installer` renders with the manager pinned by digest, as `make publish` does. Each
// must run the release's manager image, as published.
func TestEveryReleaseInstallsWithoutOLMFromWhatIsPublished(t *testing.T) {
	helm := os.Getenv("HELM")
	if helm == "" {
		t.Fatal("HELM is not set: run these tests with `make test-images`")
	}
	chartRepo := "oci://" + path.Dir(env.imageTagBase) + "/charts/" + packageName
	for _, version := range releases(t, env.checkout) {
		t.Run(version, func(t *testing.T) {
			manager := env.imageTagBase + ":v" + version
			digest := imageDigest(t, manager)

			// What the chart runs, as helm install would render it, whatever shape its values take.
			rendered := runTool(t, helm, "template", packageName, chartRepo, "--version", version)
			objects, err := resources.Decode(bytes.NewReader(rendered))
			if err != nil {
				t.Fatalf("decoding chart %s %s as helm template renders it: %v", chartRepo, version, err)
			}
			if got, err := harness.ManagerImage(objects); err != nil || got != manager {
				t.Errorf("the chart %s %s runs %s (%v), want %s", chartRepo, version, got, err, manager)
			}

			make := exec.Command("make", "--no-print-directory", "build-installer", "VERSION="+version, "USE_IMAGE_DIGESTS=true")
			make.Dir = env.checkout
			if output, err := make.CombinedOutput(); err != nil {
				t.Fatalf("make build-installer VERSION=%s USE_IMAGE_DIGESTS=true: %v\n%s", version, err, output)
			}
			installer := filepath.Join(env.checkout, "dist", "install.yaml")
			if _, err := os.Stat(filepath.Join(env.checkout, "releases", version)); err == nil {
				installer = filepath.Join(env.checkout, "bin", "releases", version, "install.yaml")
			}
			if got, want := installerImage(t, installer), env.imageTagBase+"@"+digest; got != want {
				t.Errorf("%s runs %s, want the published manager pinned by digest, %s", installer, got, want)
			}
		})
	}
}

// imageDigest is the digest of reference in the registry.
func imageDigest(t *testing.T, reference string) string {
	t.Helper()
	ref, err := name.ParseReference(reference)
	if err != nil {
		t.Fatal(err)
	}
	descriptor, err := remote.Head(ref)
	if err != nil {
		t.Fatalf("%s is not in the registry: %v", reference, err)
	}
	return descriptor.Digest.String()
}

// installerImage is the image of the manager container of the Deployment in the installer
// file.
func installerImage(t *testing.T, file string) string {
	t.Helper()
	objects, err := resources.Decode(bytes.NewReader(harness.ReadFile(t, file)))
	if err != nil {
		t.Fatalf("decoding %s: %v", file, err)
	}
	image, err := harness.ManagerImage(objects)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return image
}
