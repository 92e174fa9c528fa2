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

// Package images checks what a cluster pulls when it installs the operator: it pushes the
// images that `make images` built for every release to a real registry, with the
// publishing targets a user runs, then follows every image reference from the catalog
// image, as OLM does, and checks that each one is there, under IMAGE_TAG_BASE, with the
// content and configuration the Dockerfiles declare. `make test-images` runs it, in a
// network namespace of its own: opm serve listens on every interface.
package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/example/foo-operator/hack/localcluster/process"
	"github.com/example/foo-operator/hack/localcluster/registry"
)

// env holds what `make test-images` passes in.
var env struct {
	registryBinary string
	opm            string
	operatorSDK    string
	imageTagBase   string
	// checkout is the copy of the project that `make images` built the images in.
	checkout string
	// dir keeps the registry's storage and the logs.
	dir string
}

var localRegistry *registry.Registry

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	for name, value := range map[string]*string{
		"REGISTRY_SERVER": &env.registryBinary, "OPM": &env.opm, "OPERATOR_SDK": &env.operatorSDK,
		"IMAGE_TAG_BASE": &env.imageTagBase, "IMAGE_CHECKOUT": &env.checkout, "IMAGE_TEST_DIR": &env.dir,
	} {
		if *value = os.Getenv(name); *value == "" {
			fmt.Fprintf(os.Stderr, "%s is not set: run these tests with `make test-images`\n", name)
			return 1
		}
	}
	ctx := context.Background()
	start := time.Now()
	var err error
	localRegistry, err = registry.Start(ctx, registry.Options{
		Binary:  env.registryBinary,
		Dir:     filepath.Join(env.dir, "registry"),
		Address: strings.SplitN(env.imageTagBase, "/", 2)[0],
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "Starting the registry: %v\n", err)
		return 1
	}
	defer func() { _ = localRegistry.Stop() }()
	fmt.Printf("==> Started the registry at %s in %.1fs\n", localRegistry.Host, time.Since(start).Seconds())
	// This process pulls from the registry too; SSL_CERT_FILE is how Go's TLS (and so
	// go-containerregistry's, opm's and operator-sdk's) is told to trust its CA.
	if err := os.Setenv("SSL_CERT_FILE", localRegistry.TrustBundle); err != nil {
		return 1
	}

	start = time.Now()
	push := exec.Command("make", "--no-print-directory", "images-push", "CONTAINER_TOOL=imagebuilder")
	push.Dir = env.checkout
	push.Stdout, push.Stderr = os.Stdout, os.Stderr
	if err := push.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "make images-push in %s: %v\n", env.checkout, err)
		return 1
	}
	fmt.Printf("==> Pushed every image with make images-push in %.1fs\n", time.Since(start).Seconds())

	code := m.Run()
	if code != 0 {
		fmt.Fprintln(os.Stderr, process.Tail(localRegistry.LogFile, 30))
	}
	return code
}
