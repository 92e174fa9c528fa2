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
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

// installerNamespace is where config/default, and so every release's install.yaml, puts the
// operator.
const installerNamespace = "foo-operator-system"

// installerJourney installs each earlier release in turn from its one-file installer as a
// user of a cluster without OLM does (`kubectl apply --server-side -f install.yaml`), upgrades
// it by applying the newest release's file over it, and removes it with `kubectl delete -f`.
// Each file is rendered as `make publish` renders it for a release: its manager image pinned
// by digest in the registry it was pushed to.
func installerJourney() {
	storyNamespace := func(from string) string { return "installer-story-" + strings.ReplaceAll(from, ".", "-") }
	stories := map[string]map[string]*tutorialv1.Foo{}

	BeforeAll(func(ctx context.Context) {
		namespaces := make([]*corev1.Namespace, 0, len(earlierReleases))
		for _, from := range earlierReleases {
			namespaces = append(namespaces, newNamespace(storyNamespace(from), nil))
		}
		createNamespaces(ctx, namespaces...)
	})

	for _, from := range earlierReleases {
		It("installs "+from+" from its install.yaml, and the operator plays the story", func(ctx context.Context) {
			installer, image := renderInstaller(ctx, from)
			kubectl(ctx, "apply", "--server-side", "-f", installer)
			Expect(resources.WaitDeploymentAvailable(ctx, clientset, installerNamespace, operatorDeployment, installTimeout)).To(Succeed())
			expectManagerRunning(ctx, installerNamespace, image)
			playStory(ctx, installerNamespace, storyNamespace(from))
			stories[from] = foosIn(ctx, storyNamespace(from))
		}, SpecTimeout(8*time.Minute))

		It("upgrades "+from+" to "+newestRelease+" when its install.yaml is applied over, keeping every Foo", func(ctx context.Context) {
			installer, image := renderInstaller(ctx, newestRelease)
			kubectl(ctx, "apply", "--server-side", "-f", installer)
			expectKeptAcrossUpgrade(ctx, upgrade{operatorNamespace: installerNamespace, storyNamespace: storyNamespace(from),
				version: newestRelease, image: image, stories: stories[from]})
		}, SpecTimeout(8*time.Minute))

		It("removes the operator upgraded from "+from+", its CRD with every Foo, and its cluster roles with kubectl delete -f",
			func(ctx context.Context) {
				installer := filepath.Join(tools.checkout, "dist", "install.yaml")
				kubectl(ctx, "delete", "-f", installer)
				suite.ExpectGone(ctx, k8sClient, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: installerNamespace}}, installTimeout)
				expectUninstalledAsDocumented(ctx, harness.WayInstallYAML, storyNamespace(from), nil)
				var roles rbacv1.ClusterRoleList
				Expect(k8sClient.List(ctx, &roles)).To(Succeed())
				var bindings rbacv1.ClusterRoleBindingList
				Expect(k8sClient.List(ctx, &bindings)).To(Succeed())
				for _, object := range append(objectsNamed(roles.Items), objectsNamed(bindings.Items)...) {
					Expect(object).NotTo(HavePrefix("foo-operator-"), "%s is left behind", object)
				}
			}, SpecTimeout(5*time.Minute))
	}
}

// renderInstaller renders the install.yaml of release version in the checkout the images
// were built from, as `make publish` does once the manager image is pushed, and returns its
// path and the manager image it names, which must be pinned by digest.
func renderInstaller(ctx context.Context, version string) (path, image string) {
	GinkgoHelper()
	run(ctx, tools.checkout, "make", "--no-print-directory", "build-installer", "VERSION="+version, "USE_IMAGE_DIGESTS=true")
	// The Makefile's rule: an earlier release (frozen under releases/) is staged under bin/.
	path = filepath.Join(tools.checkout, "dist", "install.yaml")
	if _, err := os.Stat(filepath.Join(tools.checkout, "releases", version)); err == nil {
		path = filepath.Join(tools.checkout, "bin", "releases", version, "install.yaml")
	}
	image = managerImageOf(path)
	Expect(image).To(Equal(pinnedManagerImage(ctx, version)), "the manager image of %s, pinned by its digest in the registry", path)
	return path, image
}

// managerImageOf reads the image of the manager's container from the Deployment of the
// rendered manifest at path.
func managerImageOf(path string) string {
	GinkgoHelper()
	file, err := os.Open(path)
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = file.Close() }()
	objects, err := resources.Decode(file)
	Expect(err).NotTo(HaveOccurred(), "decoding %s", path)
	image, err := harness.ManagerImage(objects)
	Expect(err).NotTo(HaveOccurred(), "the manager image of %s", path)
	return image
}
