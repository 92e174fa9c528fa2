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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/example/foo-operator/test/localcluster"
)

// installOLM installs OLM v0 with the local-cluster library, as `make cluster OLM=v0` does,
// then asks operator-sdk whether OLM is healthy.
func installOLM(ctx context.Context) {
	GinkgoHelper()
	By("installing OLM " + localcluster.OLMv0Version + " from its release manifests, with its images built here")
	releaseDir, err := cluster.InstallOLMv0(ctx)
	Expect(err).NotTo(HaveOccurred())

	By("asking operator-sdk whether OLM is healthy")
	proxy, trust := serveOLMRelease(releaseDir)
	output, err := runToolWithEnv(ctx, workDir, []string{"HTTPS_PROXY=" + proxy, "SSL_CERT_FILE=" + trust},
		tools.operatorSDK, "olm", "status", "--olm-namespace", olmNamespace)
	Expect(err).NotTo(HaveOccurred(), output)
	Expect(output).To(ContainSubstring(`Successfully got OLM status for version \"` + strings.TrimPrefix(localcluster.OLMv0Version, "v") + `\"`))
	for _, deployment := range []string{"olm-operator", "catalog-operator"} {
		Expect(output).To(MatchRegexp(`(?m)^%s\s+olm\s+Deployment\s+Installed$`, deployment))
	}
	Expect(output).To(MatchRegexp(`(?m)^packageserver\s+olm\s+ClusterServiceVersion\s+Installed$`))
	// The one resource of the release the library leaves out: the catalog nothing here reaches.
	Expect(output).To(MatchRegexp(`(?m)^operatorhubio-catalog\s+olm\s+CatalogSource\s+.*not found`))
}

// serveOLMRelease serves OLM's release assets (crds.yaml, olm.yaml in releaseDir) where
// operator-sdk olm status downloads them to learn what a healthy OLM has:
// https://github.com/operator-framework/operator-lifecycle-manager/releases/download/<version>/.
// This machine has no route to github.com, so it serves them through an HTTPS proxy on
// loopback, as a mirror of the release, with a certificate for github.com of a CA of its
// own. It returns the proxy's URL and a trust bundle holding that CA and the registry's.
func serveOLMRelease(releaseDir string) (proxyURL, trustBundle string) {
	GinkgoHelper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	caTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2e release mirror CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTemplate, caTemplate, &caKey.PublicKey, caKey)
	Expect(err).NotTo(HaveOccurred())
	ca, err := x509.ParseCertificate(caDER)
	Expect(err).NotTo(HaveOccurred())
	serverKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	serverDER, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "github.com"}, DNSNames: []string{"github.com"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, ca, &serverKey.PublicKey, caKey)
	Expect(err).NotTo(HaveOccurred())
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{{Certificate: [][]byte{serverDER}, PrivateKey: serverKey}}}

	prefix := "/operator-framework/operator-lifecycle-manager/releases/download/" + localcluster.OLMv0Version + "/"
	assets := http.NewServeMux()
	assets.HandleFunc("GET "+prefix+"{asset}", func(w http.ResponseWriter, r *http.Request) {
		asset := r.PathValue("asset")
		if asset != "crds.yaml" && asset != "olm.yaml" {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join(releaseDir, asset))
	})
	// The proxy answers CONNECT to github.com:443 only, and serves the assets itself over
	// the tunnel; it connects nowhere.
	proxy := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || r.Host != "github.com:443" {
			http.Error(w, "this proxy only mirrors github.com", http.StatusForbidden)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		_, _ = conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n"))
		tunnel := tls.Server(conn, tlsConfig)
		_ = (&http.Server{Handler: assets}).Serve(&oneConnListener{conn: tunnel})
	})}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	go func() { _ = proxy.Serve(listener) }()
	DeferCleanup(func() { _ = proxy.Close() })

	registryTrust, err := os.ReadFile(cluster.Registry.TrustBundle)
	Expect(err).NotTo(HaveOccurred())
	trustBundle = filepath.Join(workDir, "release-mirror-trust.pem")
	Expect(os.WriteFile(trustBundle, append(registryTrust, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})...), 0o644)).To(Succeed())
	return "http://" + listener.Addr().String(), trustBundle
}

// oneConnListener hands one connection to an http.Server, then reports itself closed.
type oneConnListener struct {
	conn net.Conn
	done bool
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	if l.done {
		return nil, net.ErrClosed
	}
	l.done = true
	return l.conn, nil
}
func (l *oneConnListener) Close() error   { return nil }
func (l *oneConnListener) Addr() net.Addr { return l.conn.LocalAddr() }
