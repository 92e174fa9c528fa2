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
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/crane"
	gcrname "github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	imagespec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/example/foo-operator/hack/localcluster/pki"
	"github.com/example/foo-operator/hack/localcluster/process"
)

// Options says which registry binary to run and where it keeps its files.
type Options struct {
	// Binary is distribution's registry (`make registry` builds it).
	Binary string
	// Dir holds the registry's storage, certificates, configuration and log. Images and
	// certificates in it outlive a restart of the registry on the same Dir.
	Dir string
	// Address is the host:port to serve on; empty picks a free port on 127.0.0.1.
	Address string
	// LogDir receives the registry's log, <Name>.log; empty means Dir.
	LogDir string
	// Name names the registry's process and log; empty means "registry".
	Name string
}

// Registry is distribution's registry serving HTTPS on a loopback address, with a
// certificate of a CA of its own. Nothing on the machine trusts that CA: each client is
// given it (TrustBundle, CAFile).
type Registry struct {
	// Host is the registry's host:port, the first part of the references of its images.
	Host string
	// CAFile is the PEM certificate of the CA that signed the registry's certificate.
	CAFile string
	// TrustBundle is the machine's CA bundle plus CAFile: what SSL_CERT_FILE names for a
	// process that talks to this registry and to the rest of the world alike.
	TrustBundle string
	// LogFile is where the registry logs.
	LogFile string

	process *process.Process
}

// Start starts the registry and returns once it answers over TLS.
func Start(ctx context.Context, opts Options) (*Registry, error) {
	if opts.Binary == "" || opts.Dir == "" {
		return nil, errors.New("the registry needs its binary and a folder")
	}
	address := opts.Address
	if address == "" {
		ports, err := process.FreePorts(1)
		if err != nil {
			return nil, err
		}
		address = "127.0.0.1:" + strconv.Itoa(ports[0])
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("registry address %q: %w", address, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("the registry serves on a loopback address only, not %s", address)
	}
	pkiDir := filepath.Join(opts.Dir, "pki")
	ca, err := pki.LoadOrCreate(pkiDir)
	if err != nil {
		return nil, err
	}
	certFile, keyFile, err := ca.Serving(pkiDir, "registry", []net.IP{net.ParseIP(host)}, []string{"localhost"})
	if err != nil {
		return nil, err
	}
	logDir := opts.LogDir
	if logDir == "" {
		logDir = opts.Dir
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, err
	}
	r := &Registry{
		Host:        address,
		CAFile:      filepath.Join(pkiDir, pki.CertFile),
		TrustBundle: filepath.Join(pkiDir, "trust-bundle.pem"),
		LogFile:     filepath.Join(logDir, opts.name()+".log"),
	}
	if err := writeTrustBundle(r.TrustBundle, ca.CertPEM); err != nil {
		return nil, err
	}
	storage := filepath.Join(opts.Dir, "storage")
	if err := os.MkdirAll(storage, 0o755); err != nil {
		return nil, err
	}
	configFile := filepath.Join(opts.Dir, "config.yml")
	if err := os.WriteFile(configFile, []byte(registryConfig(address, storage, certFile, keyFile)), 0o600); err != nil {
		return nil, err
	}
	r.process, err = process.Start(process.Options{
		Name: opts.name(), LogDir: logDir, Binary: opts.Binary, Args: []string{"serve", configFile},
		// Tracing is off: the registry would otherwise try to export traces.
		Env: process.MinimalEnv("OTEL_TRACES_EXPORTER=none"),
	})
	if err != nil {
		return nil, fmt.Errorf("%w (run `make registry` to build it)", err)
	}
	if err := r.waitReady(ctx, ca.Pool()); err != nil {
		return nil, errors.Join(err, r.Stop())
	}
	return r, nil
}

func (o Options) name() string {
	if o.Name == "" {
		return "registry"
	}
	return o.Name
}

// registryConfig is the registry's configuration: HTTPS on address, images in storage,
// deletes allowed (so that tests and users can unpublish a tag).
func registryConfig(address, storage, certFile, keyFile string) string {
	return fmt.Sprintf(`version: 0.1
log:
  level: info
  formatter: text
storage:
  filesystem:
    rootdirectory: %q
  delete:
    enabled: true
http:
  addr: %q
  tls:
    certificate: %q
    key: %q
`, storage, address, certFile, keyFile)
}

// waitReady waits until the registry answers GET /v2/ over TLS with the CA's trust.
func (r *Registry) waitReady(ctx context.Context, roots *x509.CertPool) error {
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}},
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	url := "https://" + r.Host + "/v2/"
	var lastErr error
	for {
		request, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		response, err := client.Do(request)
		if err == nil {
			_ = response.Body.Close()
			if response.StatusCode == http.StatusOK {
				return nil
			}
			lastErr = fmt.Errorf("GET %s answered %s", url, response.Status)
		} else {
			lastErr = err
		}
		select {
		case <-r.process.Exited():
			return fmt.Errorf("the registry exited before it served %s; its log: %s", url, process.Tail(r.LogFile, 20))
		case <-ctx.Done():
			return fmt.Errorf("waiting for the registry to serve %s: %w; last: %v; its log: %s", url, ctx.Err(), lastErr, process.Tail(r.LogFile, 20))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// At is a registry that runs elsewhere, at host (host:port), whose certificate
// chains to the CA in the PEM file caFile, or to one this machine trusts if caFile is empty.
// Its trust bundle (the machine's CAs and caFile's) is written to trustBundle.
func At(host, caFile, trustBundle string) (*Registry, error) {
	var caPEM []byte
	if caFile != "" {
		var err error
		if caPEM, err = os.ReadFile(caFile); err != nil {
			return nil, fmt.Errorf("the registry's CA: %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(trustBundle), 0o755); err != nil {
		return nil, err
	}
	if err := writeTrustBundle(trustBundle, caPEM); err != nil {
		return nil, err
	}
	return &Registry{Host: host, CAFile: caFile, TrustBundle: trustBundle}, nil
}

// Env is the environment of a process that pulls from or pushes to the registry: Go's
// TLS (that of opm, operator-sdk, imagebuilder, crane) reads its roots from SSL_CERT_FILE.
func (r *Registry) Env() []string {
	return []string{"SSL_CERT_FILE=" + r.TrustBundle}
}

// Stop stops the registry; its images stay in its folder. It reports a registry that had
// to be killed, or that had ended before with an error.
func (r *Registry) Stop() error {
	if r.process == nil {
		return nil
	}
	if !r.process.Running() {
		if err := r.process.Err(); err != nil {
			return fmt.Errorf("the registry had ended: %w; %s", err, r.process.Tail(10))
		}
		return nil
	}
	_, err := r.process.Stop(10 * time.Second)
	return err
}

// machineCABundles are where Debian and Fedora keep the machine's CA bundle.
var machineCABundles = []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"}

// writeTrustBundle writes the machine's CAs and the registry's CA into path. A process
// given SSL_CERT_FILE=path still reaches the module proxy and other public servers.
func writeTrustBundle(path string, caPEM []byte) error {
	var bundle []byte
	for _, candidate := range machineCABundles {
		if data, err := os.ReadFile(candidate); err == nil {
			bundle = append(data, '\n')
			break
		}
	}
	return os.WriteFile(path, append(bundle, caPEM...), 0o644)
}

// Transport is an HTTPS transport that trusts the registry's CA, if it has one of its own,
// and the machine's.
func (r *Registry) Transport() (http.RoundTripper, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if r.CAFile != "" {
		caPEM, err := os.ReadFile(r.CAFile)
		if err != nil {
			return nil, err
		}
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, fmt.Errorf("%s holds no certificate", r.CAFile)
		}
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return transport, nil
}

// Digest asks the registry for the digest of reference (one of its images, by tag or by
// digest), as a node resolves it before it pulls.
func (r *Registry) Digest(ctx context.Context, reference string) (string, error) {
	ref, err := gcrname.ParseReference(reference)
	if err != nil {
		return "", err
	}
	transport, err := r.Transport()
	if err != nil {
		return "", err
	}
	descriptor, err := remote.Head(ref, remote.WithContext(ctx), remote.WithTransport(transport), remote.WithAuthFromKeychain(authn.DefaultKeychain))
	if err != nil {
		return "", fmt.Errorf("asking the registry for the digest of %s: %w", reference, err)
	}
	return descriptor.Digest.String(), nil
}

// PushLayout pushes every image and index of the OCI image layout dir to the registry and
// returns where they are. Each is pushed under the name the
// layout gives it (its org.opencontainers.image.ref.name): a name of this registry as it
// is; a name without a registry (pause:latest) under this registry; a name of another
// registry (quay.io/operator-framework/opm:v1.73.0) under this registry with the same
// repository and tag, where a node that mirrors that registry (localcluster.Options.RegistryMirrors)
// pulls it. Given names, it pushes only the images of those names. It returns the
// reference in this registry of each image pushed, by its name in the layout.
func (r *Registry) PushLayout(ctx context.Context, dir string, names ...string) (map[string]string, error) {
	store, err := layout.FromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("opening the image layout %s: %w", dir, err)
	}
	index, err := store.ImageIndex()
	if err != nil {
		return nil, err
	}
	manifest, err := index.IndexManifest()
	if err != nil {
		return nil, err
	}
	transport, err := r.Transport()
	if err != nil {
		return nil, err
	}
	pushed := map[string]string{}
	for _, descriptor := range manifest.Manifests {
		name := descriptor.Annotations[imagespec.AnnotationRefName]
		if name == "" || (len(names) > 0 && !slices.Contains(names, name)) {
			continue
		}
		ref, err := r.localReference(name)
		if err != nil {
			return nil, fmt.Errorf("the image %s of %s: %w", name, dir, err)
		}
		// A registry of the user's may want the login of ~/.docker/config.json; the local one
		// wants none, and gets none from an empty keychain.
		options := []remote.Option{remote.WithContext(ctx), remote.WithTransport(transport), remote.WithAuthFromKeychain(authn.DefaultKeychain)}
		if descriptor.MediaType.IsIndex() {
			child, err := index.ImageIndex(descriptor.Digest)
			if err == nil {
				err = remote.WriteIndex(ref, child, options...)
			}
			if err != nil {
				return nil, fmt.Errorf("pushing %s: %w", ref, err)
			}
		} else {
			image, err := index.Image(descriptor.Digest)
			if err == nil {
				err = remote.Write(ref, image, options...)
			}
			if err != nil {
				return nil, fmt.Errorf("pushing %s: %w", ref, err)
			}
		}
		pushed[name] = ref.String()
	}
	for _, name := range names {
		if pushed[name] == "" {
			return pushed, fmt.Errorf("the image layout %s has no image %s", dir, name)
		}
	}
	return pushed, nil
}

// Copy copies the image (or index) source, a reference in this registry, to the name name
// in this registry: for a name of a mirrored registry (localcluster.Options.RegistryMirrors), where the
// node pulls that name from.
func (r *Registry) Copy(ctx context.Context, source, name string) error {
	transport, err := r.Transport()
	if err != nil {
		return err
	}
	to, err := r.localReference(name)
	if err != nil {
		return err
	}
	return crane.Copy(source, to.String(), crane.WithContext(ctx), crane.WithTransport(transport), crane.WithAuthFromKeychain(authn.DefaultKeychain))
}

// localReference is where PushLayout pushes the image named name.
func (r *Registry) localReference(name string) (gcrname.Reference, error) {
	ref, err := gcrname.ParseReference(name, gcrname.WithDefaultRegistry(""))
	if err != nil {
		return nil, err
	}
	repository := ref.Context().RepositoryStr()
	if registry := ref.Context().RegistryStr(); registry == "" || registry == r.Host {
		repository = strings.TrimPrefix(repository, "library/")
	}
	local := r.Host + "/" + repository
	switch ref := ref.(type) {
	case gcrname.Tag:
		return gcrname.ParseReference(local + ":" + ref.TagStr())
	case gcrname.Digest:
		return gcrname.ParseReference(local + "@" + ref.DigestStr())
	}
	return nil, fmt.Errorf("%s is neither a tag nor a digest", name)
}
