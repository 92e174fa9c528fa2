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
	"bytes"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/example/foo-operator/test/harness"
)

// supplyChain holds the tools and keys `make test-images` passes in: the key pair `make
// images-push` signed with.
type supplyChain struct {
	supplychain, cosign, syft string
	privateKey, publicKey     string
}

func supplyChainTools(t *testing.T) supplyChain {
	t.Helper()
	tools := supplyChain{supplychain: os.Getenv("SUPPLYCHAIN"), cosign: os.Getenv("COSIGN"), syft: os.Getenv("SYFT"),
		privateKey: os.Getenv("COSIGN_KEY")}
	if tools.supplychain == "" || tools.cosign == "" || tools.syft == "" || tools.privateKey == "" {
		t.Fatal("SUPPLYCHAIN, COSIGN, SYFT and COSIGN_KEY must be set: run these tests with `make test-images`")
	}
	tools.publicKey = strings.TrimSuffix(tools.privateKey, ".key") + ".pub"
	return tools
}

// catalogImage is the catalog image of the newest release, as `make images-push` pushed it.
func catalogImage(t *testing.T) string {
	t.Helper()
	return env.imageTagBase + "-catalog:v" + harness.MakefileVersion(t, env.checkout)
}

// verifyImages runs `make verify-images` on the catalog image and returns what it printed and
// whether it passed.
func verifyImages(t *testing.T, catalog, publicKey string) (string, bool) {
	t.Helper()
	verify := exec.Command("make", "--no-print-directory", "verify-images", "CATALOG_IMG="+catalog, "COSIGN_PUBLIC_KEY="+publicKey)
	verify.Dir = env.checkout
	output, err := verify.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("running make verify-images: %v", err)
	}
	return string(output), err == nil
}

// TestEveryPublishedImageVerifiesFromTheCatalogDown runs `make verify-images` on what `make
// images-push` published: every release's bundle, manager index and platform images and
// chart, and the catalog, each signed with its SBOM and provenance.
func TestEveryPublishedImageVerifiesFromTheCatalogDown(t *testing.T) {
	tools := supplyChainTools(t)
	output, passed := verifyImages(t, catalogImage(t), tools.publicKey)
	if !passed {
		t.Fatalf("make verify-images failed on what make images-push published:\n%s", output)
	}
	for _, version := range releases(t, env.checkout) {
		for _, role := range []string{"bundle " + packageName + ".v" + version, "chart " + version} {
			if !strings.Contains(output, "verified "+role+" ") {
				t.Errorf("make verify-images did not verify the %s:\n%s", role, output)
			}
		}
		for _, platform := range managerPlatforms(t, version) {
			if !strings.Contains(output, "("+platform+"): signed") {
				t.Errorf("make verify-images did not verify release %s's manager image for %s:\n%s", version, platform, output)
			}
		}
	}
	if !strings.Contains(output, "verified catalog ") {
		t.Errorf("make verify-images did not verify the catalog:\n%s", output)
	}
	t.Logf("make verify-images:\n%s", output)
}

// TestManagerSBOMListsTheModulesOfItsBinary compares, for each platform of the newest
// release's manager image, the Go modules its attested SBOM lists with those `go version -m`
// reads from the binary in the image.
func TestManagerSBOMListsTheModulesOfItsBinary(t *testing.T) {
	tools := supplyChainTools(t)
	version := harness.MakefileVersion(t, env.checkout)
	reference := env.imageTagBase + ":v" + version
	for _, platform := range managerPlatforms(t, version) {
		t.Run(platform, func(t *testing.T) {
			parsed, err := v1.ParsePlatform(platform)
			if err != nil {
				t.Fatal(err)
			}
			root := extractImage(t, reference, *parsed)
			info, err := buildinfo.ReadFile(filepath.Join(root, "manager"))
			if err != nil {
				t.Fatalf("reading the build information of the manager binary of %s (%s): %v", reference, platform, err)
			}
			// The operator's own module, built from its tree, has no version: go says
			// (devel), syft UNKNOWN. Its dependencies are compared path and version.
			var inBinary []string
			for _, module := range append([]*debug.Module{&info.Main}, info.Deps...) {
				if module.Replace != nil {
					module = module.Replace
				}
				version := module.Version
				if version == "(devel)" {
					version = "UNKNOWN"
				}
				if module.Path != "" {
					inBinary = append(inBinary, module.Path+"@"+version)
				}
			}

			image := platformImage(t, reference, platform)
			inSBOM := sbomGoModules(t, tools, image)
			for _, module := range inBinary {
				if !slices.Contains(inSBOM, module) {
					t.Errorf("the SBOM of %s omits %s, which the binary holds", image, module)
				}
			}
			for _, module := range inSBOM {
				if !slices.Contains(inBinary, module) {
					t.Errorf("the SBOM of %s lists %s, which the binary does not hold", image, module)
				}
			}
			t.Logf("%s: the binary and its SBOM both list %d Go modules", platform, len(inBinary))
		})
	}
}

// platformImage is the digest reference of the image of platform in the index reference.
func platformImage(t *testing.T, reference, platform string) string {
	t.Helper()
	ref, err := name.ParseReference(reference)
	if err != nil {
		t.Fatal(err)
	}
	index, err := remote.Index(ref)
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, child := range manifest.Manifests {
		if child.Platform != nil && child.Platform.String() == platform {
			return ref.Context().Digest(child.Digest.String()).String()
		}
	}
	t.Fatalf("%s has no image for %s", reference, platform)
	return ""
}

// sbomGoModules returns the Go modules (path@version) of the SBOM attested to image, signed
// with the test's key.
func sbomGoModules(t *testing.T, tools supplyChain, image string) []string {
	t.Helper()
	output, err := exec.Command(tools.cosign, "verify-attestation", "--key", tools.publicKey, "--insecure-ignore-tlog",
		"--type", "spdxjson", image).Output()
	if err != nil {
		t.Fatalf("cosign verify-attestation --type spdxjson %s: %v", image, err)
	}
	var envelope struct {
		Payload string `json:"payload"`
	}
	if err := json.NewDecoder(bytes.NewReader(output)).Decode(&envelope); err != nil {
		t.Fatalf("reading cosign's output: %v\n%s", err, output)
	}
	payload, err := base64.StdEncoding.DecodeString(envelope.Payload)
	if err != nil {
		t.Fatal(err)
	}
	var statement struct {
		Predicate struct {
			Packages []struct {
				Name         string `json:"name"`
				VersionInfo  string `json:"versionInfo"`
				ExternalRefs []struct {
					ReferenceType    string `json:"referenceType"`
					ReferenceLocator string `json:"referenceLocator"`
				} `json:"externalRefs"`
			} `json:"packages"`
		} `json:"predicate"`
	}
	if err := json.Unmarshal(payload, &statement); err != nil {
		t.Fatal(err)
	}
	var modules []string
	for _, pkg := range statement.Predicate.Packages {
		golang := slices.ContainsFunc(pkg.ExternalRefs, func(ref struct {
			ReferenceType    string `json:"referenceType"`
			ReferenceLocator string `json:"referenceLocator"`
		}) bool {
			return ref.ReferenceType == "purl" && strings.HasPrefix(ref.ReferenceLocator, "pkg:golang/")
		})
		// The standard library is Go itself, which `go version -m` names apart from the modules.
		if golang && pkg.Name != "stdlib" {
			modules = append(modules, pkg.Name+"@"+pkg.VersionInfo)
		}
	}
	if len(modules) == 0 {
		t.Fatalf("the SBOM of %s lists no Go module", image)
	}
	return modules
}

// TestVerifyImagesCatchesWhatAUserMustBeProtectedFrom plants, each in a catalog of its own
// beside the published one, a fault a user installing from a catalog must be told of, and
// checks that `make verify-images` fails on it with its own message.
func TestVerifyImagesCatchesWhatAUserMustBeProtectedFrom(t *testing.T) {
	tools := supplyChainTools(t)
	published := catalogImage(t)
	otherKeys := t.TempDir()
	generate := exec.Command(tools.cosign, "generate-key-pair")
	generate.Dir, generate.Env = otherKeys, append(os.Environ(), "COSIGN_PASSWORD=")
	if output, err := generate.CombinedOutput(); err != nil {
		t.Fatalf("cosign generate-key-pair: %v\n%s", err, output)
	}

	faults := []struct {
		name string
		// plant pushes and signs the faulty catalog and returns its reference.
		plant func(t *testing.T, catalog string) string
		want  string
	}{
		{
			name: "an image re-pushed under a signed tag",
			plant: func(t *testing.T, catalog string) string {
				copyImage(t, published, catalog)
				attestImage(t, tools, catalog, tools.privateKey)
				writeImage(t, catalog, withFile(t, pull(t, published), "configs/"+packageName+"/repushed.txt", "not what was signed"))
				return catalog
			},
			want: "FAILED   catalog %s (now sha256:",
		},
		{
			name: "an unsigned bundle added to the catalog",
			plant: func(t *testing.T, catalog string) string {
				unsigned := strings.TrimSuffix(catalog, "-catalog:v0.0.1") + "-unsigned-bundle:v9.9.9"
				bundles, _ := strings.CutSuffix(published, "-catalog:v"+harness.MakefileVersion(t, env.checkout))
				writeImage(t, unsigned, withFile(t, pull(t, bundles+"-bundle:v"+harness.MakefileVersion(t, env.checkout)),
					"manifests/planted.txt", "a bundle no one signed"))
				entry := `{"schema":"olm.bundle","name":"` + packageName + `.v9.9.9","package":"` + packageName +
					`","image":"` + unsigned + `@` + imageDigest(t, unsigned) + `"}`
				writeImage(t, catalog, withFile(t, pull(t, published), "configs/"+packageName+"/planted.json", entry))
				attestImage(t, tools, catalog, tools.privateKey)
				return catalog
			},
			want: "FAILED   bundle " + packageName + ".v9.9.9 ",
		},
		{
			name: "an attestation removed",
			plant: func(t *testing.T, catalog string) string {
				copyImage(t, published, catalog)
				attestImage(t, tools, catalog, tools.privateKey)
				removeAttestation(t, catalog, "https://spdx.dev/Document")
				return catalog
			},
			want: "FAILED   catalog %s (now sha256:",
		},
		{
			name: "a signature made with another key",
			plant: func(t *testing.T, catalog string) string {
				copyImage(t, published, catalog)
				attestImage(t, tools, catalog, filepath.Join(otherKeys, "cosign.key"))
				return catalog
			},
			want: "FAILED   catalog %s (now sha256:",
		},
	}
	messages := map[string]string{}
	for i, fault := range faults {
		t.Run(fault.name, func(t *testing.T) {
			catalog := env.imageTagBase + "-planted-" + string(rune('a'+i)) + "-catalog:v0.0.1"
			planted := fault.plant(t, catalog)
			output, passed := verifyImages(t, planted, tools.publicKey)
			if passed {
				t.Fatalf("make verify-images passed on a catalog with %s:\n%s", fault.name, output)
			}
			want := strings.ReplaceAll(fault.want, "%s", planted)
			message := failureLine(output, want)
			if message == "" {
				t.Fatalf("make verify-images failed on a catalog with %s, but named no %q:\n%s", fault.name, want, output)
			}
			if !strings.Contains(output, "1 of ") {
				t.Errorf("make verify-images failed more than the planted fault (%s):\n%s", fault.name, output)
			}
			// What tells the faults apart: the line without the images' names and digests.
			reason := digests.ReplaceAllString(strings.ReplaceAll(message, planted, "<catalog>"), "sha256:...")
			for other, seen := range messages {
				if seen == reason {
					t.Errorf("%s and %s fail with the same message %q: a user cannot tell them apart", fault.name, other, reason)
				}
			}
			messages[fault.name] = reason
			t.Logf("%s: %s", fault.name, message)
		})
	}
}

// digests matches an image digest.
var digests = regexp.MustCompile(`sha256:[0-9a-f]{64}`)

// failureLine is the line of output that starts with prefix.
func failureLine(output, prefix string) string {
	for line := range strings.SplitSeq(output, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

func pull(t *testing.T, reference string) v1.Image {
	t.Helper()
	ref, err := name.ParseReference(reference)
	if err != nil {
		t.Fatal(err)
	}
	image, err := remote.Image(ref)
	if err != nil {
		t.Fatalf("pulling %s: %v", reference, err)
	}
	return image
}

func copyImage(t *testing.T, from, to string) {
	t.Helper()
	writeImage(t, to, pull(t, from))
}

func writeImage(t *testing.T, reference string, image v1.Image) {
	t.Helper()
	ref, err := name.ParseReference(reference)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, image); err != nil {
		t.Fatalf("pushing %s: %v", reference, err)
	}
}

// withFile returns image with one more layer, which holds a file.
func withFile(t *testing.T, image v1.Image, path, content string) v1.Image {
	t.Helper()
	var buffer bytes.Buffer
	archive := tar.NewWriter(&buffer)
	if err := archive.WriteHeader(&tar.Header{Name: path, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := archive.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := archive.Close(); err != nil {
		t.Fatal(err)
	}
	layer := static.NewLayer(buffer.Bytes(), types.OCIUncompressedLayer)
	changed, err := mutate.AppendLayers(image, layer)
	if err != nil {
		t.Fatal(err)
	}
	return changed
}

// attestImage signs image with key, with its SBOM and provenance, as `make publish` does.
func attestImage(t *testing.T, tools supplyChain, image, key string) {
	t.Helper()
	attest := exec.Command(tools.supplychain, "attest", "--image", image, "--key", key, "--cosign", tools.cosign, "--syft", tools.syft,
		"--source-repository", "git+https://github.com/example/foo-operator", "--source-commit", "0123456789abcdef",
		"--build-command", "the image tests", "--builder-id", "local://image-tests")
	attest.Env = append(os.Environ(), "COSIGN_PASSWORD=")
	if output, err := attest.CombinedOutput(); err != nil {
		t.Fatalf("signing %s with %s: %v\n%s", image, key, err, output)
	}
}

// removeAttestation deletes, from the attestations cosign attached to image (the referrers
// index under the tag sha256-<digest>), the one of predicateType.
func removeAttestation(t *testing.T, image, predicateType string) {
	t.Helper()
	ref, err := name.ParseReference(image)
	if err != nil {
		t.Fatal(err)
	}
	digest := imageDigest(t, image)
	referrersTag := ref.Context().Tag(strings.Replace(digest, ":", "-", 1))
	referrers, err := remote.Index(referrersTag)
	if err != nil {
		t.Fatalf("reading the attestations of %s (%s): %v", image, referrersTag, err)
	}
	manifest, err := referrers.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	kept := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	removed := 0
	for _, descriptor := range manifest.Manifests {
		artifact, err := remote.Image(ref.Context().Digest(descriptor.Digest.String()))
		if err != nil {
			t.Fatal(err)
		}
		artifactManifest, err := artifact.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		if artifactManifest.Annotations["dev.sigstore.bundle.predicateType"] == predicateType {
			removed++
			continue
		}
		kept = mutate.AppendManifests(kept, mutate.IndexAddendum{Add: artifact, Descriptor: descriptor})
	}
	if removed == 0 {
		t.Fatalf("%s has no attestation of type %s to remove", image, predicateType)
	}
	if err := remote.WriteIndex(referrersTag, kept); err != nil {
		t.Fatalf("rewriting the attestations of %s: %v", image, err)
	}
}
