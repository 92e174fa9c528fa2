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

package olm

import (
	"context"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/example/foo-operator/hack/localcluster/process"
	"github.com/example/foo-operator/hack/localcluster/registry"
	"github.com/example/foo-operator/hack/localcluster/resources"
)

// The OLM releases the library installs, built from the modules pinned under hack/tools (OLM's
// in hack/tools/olm, operator-controller's in hack/tools/operator-sdk); olm/v0 and olm/v1 adapt
// their release manifests to a local cluster.
const (
	V0Version   = "v0.46.0"
	V0Namespace = "olm"
	V1Version   = "v1.5.1"
	V1Namespace = "olmv1-system"
)

// Mirrors are the registries OLM's images and the images OLM's tools default to are named
// in. A cluster with OLM mirrors them to the local registry, as a cluster without a route to
// them is set up: the node pulls quay.io/operator-framework/olm:v0.46.0 from
// <registry>/operator-framework/olm:v0.46.0.
var Mirrors = []string{"quay.io", "registry.access.redhat.com"}

// The images a cluster with OLM publishes in its registry for its users, besides the node's
// busybox (Image("busybox")): run bundle's index and decompression images, scorecard's untar
// and storage images, and the one image operator-sdk v1.42.2's run bundle-upgrade insists on.
const (
	// EmptyIndexImage is a file-based catalog image with no package, on opm's image (which
	// has a shell): the index `operator-sdk run bundle --index-image` adds a bundle to.
	EmptyIndexImage = "empty-index:latest"
	// ubiImage is what the registry pod of run bundle-upgrade unpacks with, whatever it is
	// told; busybox stands in for it, holding all that init container runs (sh, cat, gzip).
	ubiImage = "registry.access.redhat.com/ubi9/ubi:9.7"
)

// olmFiles are the kustomizations that adapt each OLM's release manifests to the local
// cluster, each saying why it changes what it changes.
//
//go:embed v0/* v1/*
var olmFiles embed.FS

// olmv1Certificates are the Secrets cert-manager would fill for OLM v1's release, with the
// names of the Services they serve: catalogd serves catalogs and its webhook with the first;
// operator-controller serves its metrics with the second, and reads ca.crt of it to trust
// catalogd and registries.
var olmv1Certificates = map[string][]string{
	"catalogd-service-cert-git-version": {"localhost", "catalogd-service.olmv1-system.svc", "catalogd-service.olmv1-system.svc.cluster.local"},
	"olmv1-cert":                        {"operator-controller-service.olmv1-system.svc", "operator-controller-service.olmv1-system.svc.cluster.local"},
}

// Installer installs OLM on one local cluster, through its API and its registry.
type Installer struct {
	// Dir receives the release manifests, under v0/ and v1/.
	Dir      string
	Progress process.Progress
	Config   *rest.Config
	// Clientset is an administrator's, as Config.
	Clientset kubernetes.Interface
	Registry  *registry.Registry
	// RegistryMirrors are the registries the node pulls from Registry: Mirrors among them.
	RegistryMirrors []string
	// Busybox is the node's busybox image in Registry, published as the UBI image that run
	// bundle-upgrade unpacks with.
	Busybox string
	// ServiceCertificate issues what cert-manager would for an in-cluster Service.
	ServiceCertificate func(name string, dnsNames []string) (certPEM, keyPEM, caPEM []byte, err error)
	// OLMv0Module and OLMv1Module are the folders of OLM's modules; Helm, Kustomize and
	// OLMImages the tools and the image layout of `make olm-images`.
	OLMv0Module, OLMv1Module, Helm, Kustomize, OLMImages string

	// imagesPushed tells that OLM's images are in the registry already; imagesMu holds back
	// an install of one OLM until the other's push of them is done.
	imagesMu     sync.Mutex
	imagesPushed bool
}

// olmInstallTimeout bounds each wait of an OLM install: its pods pull their images and
// start, and OLM v0's packageserver is itself installed by OLM, as a CSV.
const olmInstallTimeout = 5 * time.Minute

// InstallV0 installs OLM v0 as its release does, from its release manifests, and waits
// until OLM's operators, its packageserver and the packages API serve. The release manifests
// are rendered from OLM's chart and values, as its release script renders them; it returns
// the folder holding them (crds.yaml and olm.yaml, the release's assets, and release.yaml, all
// of it). The cluster needs a node whose registry mirrors Mirrors (Options.OLMv0 or
// Options.OLMv1 sets that up).
func (c *Installer) InstallV0(ctx context.Context) (releaseDir string, err error) {
	dir := filepath.Join(c.Dir, "v0")
	err = c.Progress.Phase("Installing OLM "+V0Version, func() (string, error) {
		if err := c.prepareOLM(ctx, c.OLMv0Module, "OLM_MODULE"); err != nil {
			return "", err
		}
		if err := c.renderV0Release(ctx, dir); err != nil {
			return "", err
		}
		if err := c.createKustomized(ctx, "v0", dir); err != nil {
			return "", err
		}
		for _, deployment := range []string{"olm-operator", "catalog-operator"} {
			if err := resources.WaitDeploymentAvailable(ctx, c.Clientset, V0Namespace, deployment, olmInstallTimeout); err != nil {
				return "", err
			}
		}
		if err := resources.WaitCondition(ctx, c.Config, operatorsGroup+"/v1alpha1", "ClusterServiceVersion", V0Namespace, "packageserver",
			olmInstallTimeout, func(object *unstructured.Unstructured) (bool, string) {
				phase, _, _ := unstructured.NestedString(object.Object, "status", "phase")
				message, _, _ := unstructured.NestedString(object.Object, "status", "message")
				return phase == "Succeeded", fmt.Sprintf("phase %q: %s", phase, message)
			}); err != nil {
			return "", err
		}
		if err := resources.WaitCondition(ctx, c.Config, "apiregistration.k8s.io/v1", "APIService", "", "v1.packages.operators.coreos.com",
			olmInstallTimeout, resources.ConditionTrue("Available")); err != nil {
			return "", err
		}
		return "olm-operator, catalog-operator and packageserver in namespace " + V0Namespace, nil
	})
	return dir, err
}

// InstallV1 installs OLM v1 (catalogd and operator-controller) from its release
// manifests; then the serving certificates its cert-manager objects would have issued, and
// the CA of its mutating webhook; and waits until catalogd and operator-controller are
// available. The cluster needs a node whose registry mirrors Mirrors.
func (c *Installer) InstallV1(ctx context.Context) error {
	return c.Progress.Phase("Installing OLM v1 "+V1Version, func() (string, error) {
		module := c.OLMv1Module
		if err := c.prepareOLM(ctx, module, "OLMV1_MODULE"); err != nil {
			return "", err
		}
		dir := filepath.Join(c.Dir, "v1")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		release, err := os.ReadFile(filepath.Join(module, "manifests", "standard.yaml"))
		if err != nil {
			return "", fmt.Errorf("operator-controller's release manifests: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "release.yaml"), release, 0o644); err != nil {
			return "", err
		}
		if err := c.createKustomized(ctx, "v1", dir); err != nil {
			return "", err
		}
		if err := c.createOLMv1Certificates(ctx); err != nil {
			return "", err
		}
		for _, deployment := range []string{"catalogd-controller-manager", "operator-controller-controller-manager"} {
			if err := resources.WaitDeploymentAvailable(ctx, c.Clientset, V1Namespace, deployment, olmInstallTimeout); err != nil {
				return "", err
			}
		}
		return "catalogd and operator-controller in namespace " + V1Namespace, nil
	})
}

// createOLMv1Certificates creates the Secrets that OLM v1's Certificates would fill, and sets
// the caBundle of its mutating webhook, which cert-manager would inject. Both programs pull
// images themselves, from the local registry: the CA bundle they are given (ca.crt, their
// only trust) holds the registry's CA besides the services'.
func (c *Installer) createOLMv1Certificates(ctx context.Context) error {
	registryCA, err := os.ReadFile(c.Registry.CAFile)
	if err != nil {
		return err
	}
	var servicesCA []byte
	for name, dnsNames := range olmv1Certificates {
		certPEM, keyPEM, caPEM, err := c.ServiceCertificate(name, dnsNames)
		if err != nil {
			return err
		}
		servicesCA = caPEM
		_, err = c.Clientset.CoreV1().Secrets(V1Namespace).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: V1Namespace, Name: name},
			Type:       corev1.SecretTypeTLS,
			Data: map[string][]byte{
				corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM,
				"ca.crt": append(append([]byte{}, caPEM...), registryCA...),
			},
		}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating Secret %s/%s: %w", V1Namespace, name, err)
		}
	}
	patch := fmt.Sprintf(`[{"op":"add","path":"/webhooks/0/clientConfig/caBundle","value":%q}]`,
		base64.StdEncoding.EncodeToString(servicesCA))
	_, err = c.Clientset.AdmissionregistrationV1().MutatingWebhookConfigurations().Patch(ctx,
		"catalogd-mutating-webhook-configuration", types.JSONPatchType, []byte(patch), metav1.PatchOptions{})
	return err
}

// prepareOLM checks what an OLM install needs, and publishes OLM's images in the registry
// (once per cluster).
func (c *Installer) prepareOLM(ctx context.Context, module, moduleVariable string) error {
	var missing []string
	for _, need := range []struct{ path, what string }{
		{module, "the OLM module's folder (" + moduleVariable + ")"},
		{c.Kustomize, "kustomize (KUSTOMIZE)"},
		{c.OLMImages, "OLM's images (OLM_IMAGES, `make olm-images`)"},
	} {
		if need.path == "" {
			missing = append(missing, need.what)
		} else if _, err := os.Stat(need.path); err != nil {
			missing = append(missing, fmt.Sprintf("%s: %v", need.what, err))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("installing OLM needs %s", strings.Join(missing, ", "))
	}
	if c.Busybox == "" {
		return errors.New("OLM runs as pods: start the cluster with a node (Options.Node)")
	}
	for _, mirrored := range Mirrors {
		if !slices.Contains(c.RegistryMirrors, mirrored) {
			return fmt.Errorf("OLM's images are named in %s, which the node does not mirror: "+
				"start the cluster with localcluster.Options.OLMv0 or OLMv1, or with %s in its RegistryMirrors", mirrored, mirrored)
		}
	}
	c.imagesMu.Lock()
	defer c.imagesMu.Unlock()
	if c.imagesPushed {
		return nil
	}
	if _, err := c.Registry.PushLayout(ctx, c.OLMImages); err != nil {
		return err
	}
	if err := c.Registry.Copy(ctx, c.Busybox, ubiImage); err != nil {
		return fmt.Errorf("publishing busybox as %s: %w", ubiImage, err)
	}
	c.imagesPushed = true
	return nil
}

// renderV0Release renders OLM's release manifests from the chart and values of its
// module, as OLM's scripts/package_release.sh does: helm template of a copy of the chart whose
// Chart.yaml carries the release's version (the packageserver's CSV is labelled with it),
// CRDs included, split as scripts/package_quickstart.sh splits them into the release's two
// assets, crds.yaml and olm.yaml, beside release.yaml, all of it, in dir.
func (c *Installer) renderV0Release(ctx context.Context, dir string) error {
	if c.Helm == "" {
		return errors.New("installing OLM v0 needs helm (HELM), which renders its release from its chart")
	}
	chart := filepath.Join(dir, "chart")
	if err := os.RemoveAll(chart); err != nil {
		return err
	}
	if err := os.CopyFS(chart, os.DirFS(filepath.Join(c.OLMv0Module, "deploy", "chart"))); err != nil {
		return fmt.Errorf("copying OLM's chart: %w", err)
	}
	chartFile := filepath.Join(chart, "Chart.yaml")
	data, err := os.ReadFile(chartFile)
	if err != nil {
		return err
	}
	versionLine := regexp.MustCompile(`(?m)^[Vv]ersion:.*$`)
	if !versionLine.Match(data) {
		return fmt.Errorf("%s has no version", chartFile)
	}
	data = versionLine.ReplaceAll(data, []byte("version: "+strings.TrimPrefix(V0Version, "v")))
	if err := os.WriteFile(chartFile, data, 0o644); err != nil {
		return err
	}
	release, err := runTool(ctx, dir, c.Helm, "template", "olm", chart, "-n", V0Namespace,
		"-f", filepath.Join(c.OLMv0Module, "deploy", "upstream", "values.yaml"), "--include-crds")
	if err != nil {
		return err
	}
	crds, others := splitCRDs(release)
	for name, content := range map[string]string{"release.yaml": release, "crds.yaml": crds, "olm.yaml": others} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// createKustomized renders the embedded kustomization <kustomization> beside the
// release's manifests in dir (release.yaml) and creates what it renders as OLM's install
// scripts do: the CRDs first, once they are established the rest.
func (c *Installer) createKustomized(ctx context.Context, kustomization, dir string) error {
	files, err := fs.Sub(olmFiles, kustomization)
	if err != nil {
		return err
	}
	if err := os.CopyFS(dir, files); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	rendered, err := runTool(ctx, dir, c.Kustomize, "build", dir)
	if err != nil {
		return err
	}
	crds, others := splitCRDs(rendered)
	if err := resources.Create(ctx, c.Config, []byte(crds), "the CRDs of "+dir); err != nil {
		return err
	}
	if err := resources.WaitCRDsEstablished(ctx, c.Config, []byte(crds), olmInstallTimeout); err != nil {
		return err
	}
	return resources.Create(ctx, c.Config, []byte(others), "the manifests of "+dir)
}

// operatorsGroup is OLM v0's API group.
const operatorsGroup = "operators.coreos.com"

// splitCRDs splits a stream of manifests into its CustomResourceDefinitions and the rest.
func splitCRDs(manifests string) (crds, others string) {
	var crdDocs, restDocs []string
	crdKind := regexp.MustCompile(`(?m)^kind: CustomResourceDefinition$`)
	for _, document := range regexp.MustCompile(`(?m)^---\s*$`).Split(manifests, -1) {
		switch {
		case strings.TrimSpace(document) == "":
		case crdKind.MatchString(document):
			crdDocs = append(crdDocs, document)
		default:
			restDocs = append(restDocs, document)
		}
	}
	return strings.Join(crdDocs, "\n---\n"), strings.Join(restDocs, "\n---\n")
}

// runTool runs a tool (helm, kustomize) in dir and returns what it printed; its error holds
// what the tool said.
func runTool(ctx context.Context, dir, binary string, args ...string) (string, error) {
	// Helm keeps its caches and configuration under HOME.
	output, err := process.RunTool(ctx, dir, process.MinimalEnv("HOME="+dir), binary, args...)
	return string(output.Stdout), err
}
