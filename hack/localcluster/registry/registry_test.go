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

package registry

import (
	"context"
	"crypto/x509"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

func startTestRegistry(t *testing.T, dir string) *Registry {
	t.Helper()
	binary := os.Getenv("REGISTRY_SERVER")
	if binary == "" {
		t.Fatal("REGISTRY_SERVER must name distribution's registry binary: run the tests with `make test`")
	}
	registry, err := Start(context.Background(), Options{Binary: binary, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = registry.Stop() })
	return registry
}

// transportTrusting is an HTTPS transport that trusts the CA in caFile only.
func transportTrusting(t *testing.T, caFile string) http.RoundTripper {
	t.Helper()
	pool := x509.NewCertPool()
	data, err := os.ReadFile(caFile)
	if err != nil || !pool.AppendCertsFromPEM(data) {
		t.Fatalf("reading the registry's CA %s: %v", caFile, err)
	}
	trusting := http.DefaultTransport.(*http.Transport).Clone()
	trusting.TLSClientConfig.RootCAs = pool
	return trusting
}

// TestRegistryKeepsImagesAndTrustAcrossRestarts pushes an image over TLS, restarts the
// registry on the same folder, and pulls it again with the CA the first start handed out.
func TestRegistryKeepsImagesAndTrustAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	registry := startTestRegistry(t, dir)
	ref, err := name.ParseReference(registry.Host + "/acme/nested/app:v1")
	if err != nil {
		t.Fatal(err)
	}
	image, err := random.Image(1024, 2)
	if err != nil {
		t.Fatal(err)
	}
	trusting := remote.WithTransport(transportTrusting(t, registry.CAFile))
	if err := remote.Write(ref, image, trusting); err != nil {
		t.Fatalf("pushing %s: %v", ref, err)
	}
	want, err := image.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if err := registry.Stop(); err != nil {
		t.Fatal(err)
	}

	restarted, err := Start(context.Background(), Options{Binary: os.Getenv("REGISTRY_SERVER"), Dir: dir, Address: registry.Host})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = restarted.Stop() })
	descriptor, err := remote.Head(ref, trusting)
	if err != nil {
		t.Fatalf("%s is gone after a restart: %v", ref, err)
	}
	if descriptor.Digest != want {
		t.Errorf("after a restart %s is %s, want %s", ref, descriptor.Digest, want)
	}
}

// TestRegistryNamesAMissingImage checks what a user meets when an image was never pushed.
func TestRegistryNamesAMissingImage(t *testing.T) {
	registry := startTestRegistry(t, t.TempDir())
	ref, err := name.ParseReference(registry.Host + "/acme/missing:v1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = remote.Head(ref, remote.WithTransport(transportTrusting(t, registry.CAFile)))
	var terr *transport.Error
	if !errors.As(err, &terr) || terr.StatusCode != http.StatusNotFound {
		t.Fatalf("HEAD of a missing image gave %v, want 404", err)
	}
}

// TestRegistryIsNotTrustedWithoutItsCA checks that trust is given per client: a client
// with only the machine's CAs refuses the registry.
func TestRegistryIsNotTrustedWithoutItsCA(t *testing.T) {
	registry := startTestRegistry(t, t.TempDir())
	_, err := http.Get("https://" + registry.Host + "/v2/")
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("a client without the registry's CA got %v, want a certificate error", err)
	}
	if _, err := os.Stat(filepath.Join(dir(registry), "pki", "ca.key")); err != nil {
		t.Errorf("the CA key is not kept with the registry: %v", err)
	}
}

func dir(r *Registry) string { return filepath.Dir(r.LogFile) }

// TestImagesArePushedWhereTheNodePullsThem checks the names PushLayout gives the images of
// a layout in the local registry.
func TestImagesArePushedWhereTheNodePullsThem(t *testing.T) {
	registry := &Registry{Host: "127.0.0.1:5000"}
	const digest = "e74b2ac57963c7f3ba19122a8c31c9f2a0deb3c0c5cac9e5323ccffd0ca198ed"
	for reference, want := range map[string]string{
		"pause:latest": "127.0.0.1:5000/pause:latest",
		"127.0.0.1:5000/acme/nested/foo-operator:v1": "127.0.0.1:5000/acme/nested/foo-operator:v1",
		"quay.io/operator-framework/opm:v1.73.0":     "127.0.0.1:5000/operator-framework/opm:v1.73.0",
		"example.com/foo@sha256:" + digest:           "127.0.0.1:5000/foo@sha256:" + digest,
	} {
		ref, err := registry.localReference(reference)
		if err != nil {
			t.Errorf("%s: %v", reference, err)
			continue
		}
		if ref.String() != want {
			t.Errorf("%s is pushed as %s, want %s", reference, ref, want)
		}
	}
}
