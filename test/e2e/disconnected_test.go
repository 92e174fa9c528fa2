//go:build e2e

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

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/hack/localcluster"
	"github.com/example/foo-operator/hack/localcluster/registry"
	"github.com/example/foo-operator/test/harness/suite"
	"github.com/example/foo-operator/test/testcluster"
)

// disconnectedFeature is the CSV annotation that tells OpenShift's console and OperatorHub
// that the operator installs on a cluster that reaches no registry but its own mirror.
const disconnectedFeature = "features.operators.openshift.io/disconnected"

// disconnectedJourney installs and upgrades the operator from its catalog the way a
// disconnected cluster does: every release is published, pinned by digest, to a registry the
// cluster will not reach (the original); every image the catalog needs is mirrored with crane
// to the registry the cluster pulls from (the mirror); the node is told, in containerd's
// hosts.toml, to pull the original registry's images from the mirror; and the original
// registry is stopped before OLM sees the catalog.
func disconnectedJourney() {
	const (
		// The catalog page's names: the journey installs with the catalog page's YAML.
		operatorNamespace = packageName
		// The catalog page's CatalogSource, named for this journey (readmeInstallYAML).
		catalogSource  = "foo-operator-catalog-mirror"
		storyNamespace = "disconnected-story"
	)
	var (
		original, mirror *registry.Registry
		originalRunning  bool
		// base is IMAGE_TAG_BASE in the original registry.
		base string
		// trust holds the machine's CAs and both registries'.
		trust string
		// pinned is the manager image of each release, by digest, as its bundle names it.
		pinned = map[string]string{}
		// stories are the story's Foos as 0.2.0 left them.
		stories map[string]*tutorialv1.Foo
		// checkout is the copy of the project that published, and makeEnv the environment
		// its make runs in: both registries trusted, the key it signed with.
		checkout string
		makeEnv  []string
		// publicKey is the public key of the pair every published image is signed with.
		publicKey string
	)
	// crane runs crane as a user mirroring images would, trusting both registries.
	crane := func(ctx context.Context, args ...string) string {
		GinkgoHelper()
		output, err := runToolWithEnv(ctx, workDir, []string{"SSL_CERT_FILE=" + trust}, tools.crane, args...)
		Expect(err).NotTo(HaveOccurred(), "crane %s:\n%s", strings.Join(args, " "), output)
		return strings.TrimSpace(output)
	}
	catalogImage := func(tag string) string { return base + "-catalog:" + tag }
	inMirror := func(image string) string { return mirror.Host + strings.TrimPrefix(image, original.Host) }

	BeforeAll(func(ctx context.Context) {
		ensureOLMv0(ctx)
		var err error
		for _, started := range []struct {
			name string
			into **registry.Registry
		}{{"registry-original", &original}, {"registry-mirror", &mirror}} {
			*started.into, err = registry.Start(ctx, registry.Options{
				Name: started.name, Binary: localcluster.AssetsFromEnv().Registry,
				Dir: filepath.Join(workDir, started.name),
			})
			Expect(err).NotTo(HaveOccurred())
		}
		originalRunning = true
		DeferCleanup(func() {
			if originalRunning {
				Expect(original.Stop()).To(Succeed())
			}
			Expect(mirror.Stop()).To(Succeed())
		})
		machineAndOriginal, err := os.ReadFile(original.TrustBundle)
		Expect(err).NotTo(HaveOccurred())
		mirrorCA, err := os.ReadFile(mirror.CAFile)
		Expect(err).NotTo(HaveOccurred())
		trust = filepath.Join(workDir, "disconnected-trust.pem")
		Expect(os.WriteFile(trust, append(machineAndOriginal, mirrorCA...), 0o644)).To(Succeed())
		base = original.Host + "/acme/foo-operator"

		By("publishing every release to the original registry with make publish, every image pinned by digest and signed")
		checkout = scratchDir("disconnected-checkout")
		run(ctx, workDir, "cp", "-a", tools.checkout+"/.", checkout)
		keys := filepath.Join(workDir, "disconnected-cosign")
		publicKey = filepath.Join(keys, "cosign.pub")
		makeEnv = []string{"SSL_CERT_FILE=" + trust, "LOCALBIN=" + requiredEnv("LOCALBIN", "the folder of the built tools"),
			"COSIGN_KEY=" + filepath.Join(keys, "cosign.key"), "COSIGN_PASSWORD="}
		for _, args := range [][]string{
			{"cosign-key", "COSIGN_KEY_DIR=" + keys},
			{"publish"},
			// The catalog as of 0.2.0: the one the cluster starts from.
			{"catalog-build", "catalog-push", "sign-catalog", "VERSION=0.2.0", "USE_IMAGE_DIGESTS=true", "CATALOG_IMG=" + catalogImage("v0.2.0")},
		} {
			args = append(args, "--no-print-directory", "IMAGE_TAG_BASE="+base, "CONTAINER_TOOL=imagebuilder", "PLATFORMS=linux/"+runtime.GOARCH)
			output, err := runToolWithEnv(ctx, checkout, makeEnv, "make", args...)
			Expect(err).NotTo(HaveOccurred(), "make %s:\n%s", strings.Join(args, " "), output)
		}
		for _, version := range []string{"0.2.0", "0.3.0"} {
			pinned[version] = crane(ctx, "digest", "--full-ref", base+":v"+version)
		}
		createNamespaces(ctx, newNamespace(storyNamespace, nil))
		DeferCleanup(func(ctx context.Context) {
			kubectl(ctx, "delete", "--ignore-not-found", "catalogsource/"+catalogSource, "-n", olmNamespace)
		})
	}, NodeTimeout(10*time.Minute))

	It("installs 0.2.0 from the mirror alone, every image the catalog needs mirrored with crane, the original registry gone",
		func(ctx context.Context) {
			for _, catalog := range []string{catalogImage("v0.2.0"), catalogImage("v0.3.0")} {
				images := catalogImages(ctx, catalog, trust)
				By("mirroring " + catalog + " and the " + strings.Join(images, ", ") + " it names")
				for _, image := range images {
					Expect(image).To(ContainSubstring("@sha256:"), "the published catalog %s names every image by digest", catalog)
					crane(ctx, "copy", image, inMirror(image))
				}
				crane(ctx, "copy", catalog, inMirror(catalog))
			}
			// cosign keeps an image's signature and attestations under the tag
			// sha256-<digest> of its repository (the registry has no referrers API): a
			// mirror that copies those tags carries them.
			By("mirroring the signatures and attestations of every image, the tags sha256-<digest> of their repositories")
			for _, repository := range []string{base, base + "-bundle", base + "-catalog"} {
				for tag := range strings.FieldsSeq(crane(ctx, "ls", repository)) {
					if strings.HasPrefix(tag, "sha256-") {
						crane(ctx, "copy", repository+":"+tag, inMirror(repository+":"+tag))
					}
				}
			}
			By("telling the node to pull the original registry's images from the mirror, and stopping the original registry")
			node, err := testcluster.As[testcluster.RegistryMirrorer](cluster, testcluster.RegistryMirror)
			Expect(err).NotTo(HaveOccurred())
			Expect(node.MirrorRegistry(original.Host, mirror)).To(Succeed())
			Expect(original.Stop()).To(Succeed())
			originalRunning = false

			By("verifying, from the mirror alone, the signature, SBOM and provenance of every image each catalog leads to")
			for _, catalog := range []string{catalogImage("v0.2.0"), catalogImage("v0.3.0")} {
				args := []string{"--no-print-directory", "verify-images", "CATALOG_IMG=" + catalog, "CHART_REPO=",
					"COSIGN_PUBLIC_KEY=" + publicKey,
					"VERIFY_MIRRORS=" + original.Host + "=" + mirror.Host}
				output, err := runToolWithEnv(ctx, checkout, makeEnv, "make", args...)
				Expect(err).NotTo(HaveOccurred(), "make %s, on the mirror:\n%s", strings.Join(args, " "), output)
				Expect(output).To(ContainSubstring("verified bundle "), "make verify-images verified no bundle of %s", catalog)
			}

			By("publishing, in the mirror, 0.2.0's catalog under the tag the CatalogSource follows")
			crane(ctx, "tag", inMirror(catalogImage("v0.2.0")), "latest")
			kubectl(ctx, "apply", "-f", readmeInstallYAML(catalogImage("latest"), catalogSource))
			expectInstalledRunning(ctx, operatorNamespace, packageName, "0.2.0", pinned["0.2.0"])
			Expect(k8sClient.Create(ctx, &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: storyNamespace, Name: "foo"},
				Spec: tutorialv1.FooSpec{Name: "jill"}})).To(Succeed())
			runFriend(ctx, storyNamespace, "jill")
			expectHappy(ctx, operatorNamespace, storyNamespace, "foo", true)
			playStory(ctx, operatorNamespace, storyNamespace)
			stories = foosIn(ctx, storyNamespace)
		}, SpecTimeout(10*time.Minute))

	It("upgrades to 0.3.0 when the mirror's tag moves to 0.3.0's catalog; 0.3.0 claims disconnected installs", func(ctx context.Context) {
		crane(ctx, "tag", inMirror(catalogImage("v0.3.0")), "latest")
		expectInstalledRunning(ctx, operatorNamespace, packageName, "0.3.0", pinned["0.3.0"])
		expectHappy(ctx, operatorNamespace, storyNamespace, "foo", true)
		expectKeptAcrossUpgrade(ctx, upgrade{operatorNamespace: operatorNamespace, storyNamespace: storyNamespace,
			version: "0.3.0", image: pinned["0.3.0"], stories: stories})
		csv := expectCSVSucceeded(ctx, operatorNamespace, csvName("0.3.0"))
		Expect(csv.Annotations).To(HaveKeyWithValue(disconnectedFeature, "true"))
		Expect(csv.Annotations).To(HaveKeyWithValue("containerImage", pinned["0.3.0"]))
		Expect(csv.Spec.RelatedImages).To(ContainElement(HaveField("Image", pinned["0.3.0"])))
		for _, related := range csv.Spec.RelatedImages {
			Expect(related.Image).To(ContainSubstring("@sha256:"), "related image %s is pinned by digest", related.Name)
		}
	}, SpecTimeout(10*time.Minute))

	It("uninstalls", func(ctx context.Context) {
		uninstall(ctx, operatorNamespace, csvName("0.3.0"))
		deleteCRD(ctx)
		suite.ExpectGone(ctx, k8sClient, &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: fooCRD}}, installTimeout)
		Expect(k8sClient.Delete(ctx, &operatorsv1alpha1.CatalogSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: olmNamespace, Name: catalogSource}})).To(Succeed())
		suite.ExpectGone(ctx, k8sClient,
			&operatorsv1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Namespace: olmNamespace, Name: catalogSource}}, installTimeout)
	}, SpecTimeout(10*time.Minute))
}

// catalogImages lists the images the catalog image catalog names, as a mirroring tool finds
// them: every bundle's image and related images, read with opm render, which trusts the CAs
// of the bundle trust.
func catalogImages(ctx context.Context, catalog, trust string) []string {
	GinkgoHelper()
	output, err := runToolWithEnv(ctx, workDir, []string{"SSL_CERT_FILE=" + trust}, tools.opm, "render", catalog, "--output", "json")
	Expect(err).NotTo(HaveOccurred(), "opm render %s:\n%s", catalog, output)
	decoder := json.NewDecoder(strings.NewReader(output))
	var images []string
	for {
		var object struct {
			Schema        string         `json:"schema"`
			Image         string         `json:"image"`
			RelatedImages []relatedImage `json:"relatedImages"`
		}
		err := decoder.Decode(&object)
		if errors.Is(err, io.EOF) {
			break
		}
		Expect(err).NotTo(HaveOccurred(), "decoding what opm render %s printed", catalog)
		if object.Schema != "olm.bundle" {
			continue
		}
		names := make([]string, 0, 1+len(object.RelatedImages))
		names = append(names, object.Image)
		for _, related := range object.RelatedImages {
			names = append(names, related.Image)
		}
		for _, image := range names {
			if !slices.Contains(images, image) {
				images = append(images, image)
			}
		}
	}
	Expect(images).NotTo(BeEmpty(), "%s names no bundle", catalog)
	return images
}

// relatedImage is an entry of an olm.bundle's relatedImages.
type relatedImage struct {
	Image string `json:"image"`
}
