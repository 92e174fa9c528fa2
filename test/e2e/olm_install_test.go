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
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// olmVersion is the OLM release the suite installs; test/e2e/olm builds its manifests.
const olmVersion = "v0.46.0"

// installOLM installs OLM the way its release does (install.sh): the CRDs first, once they
// are established the rest, then waits for OLM's operators and its packageserver.
func installOLM(ctx context.Context) {
	GinkgoHelper()
	By("rendering OLM " + olmVersion + "'s release manifests from its chart, as its release script does")
	release := renderOLMRelease(ctx)

	By("installing them, with the images rewritten to the local registry by test/e2e/olm")
	createKustomizedRelease(ctx, "olm", release, registryAddress+"/operator-framework/olm:"+olmVersion)
	for _, deployment := range []string{"olm-operator", "catalog-operator"} {
		Expect(cluster.WaitDeploymentAvailable(ctx, olmNamespace, deployment, installTimeout)).To(Succeed())
	}
	expectCSVSucceeded(ctx, olmNamespace, "packageserver")
	kubectl(ctx, "wait", "--for=condition=Available", "--timeout=2m", "apiservice/v1.packages.operators.coreos.com")

	By("asking operator-sdk whether OLM is healthy")
	proxy, trust := serveOLMRelease(release)
	output, err := runToolWithEnv(ctx, workDir, []string{"HTTPS_PROXY=" + proxy, "SSL_CERT_FILE=" + trust},
		tools.operatorSDK, "olm", "status", "--olm-namespace", olmNamespace)
	Expect(err).NotTo(HaveOccurred(), output)
	Expect(output).To(ContainSubstring(`Successfully got OLM status for version \"` + strings.TrimPrefix(olmVersion, "v") + `\"`))
	for _, deployment := range []string{"olm-operator", "catalog-operator"} {
		Expect(output).To(MatchRegexp(`(?m)^%s\s+olm\s+Deployment\s+Installed$`, deployment))
	}
	Expect(output).To(MatchRegexp(`(?m)^packageserver\s+olm\s+ClusterServiceVersion\s+Installed$`))
	// The one resource of the release the suite leaves out: the catalog nothing here reaches.
	Expect(output).To(MatchRegexp(`(?m)^operatorhubio-catalog\s+olm\s+CatalogSource\s+.*not found`))
}

// createKustomizedRelease renders the kustomization test/e2e/<kustomization>, copied into
// dir beside the release's manifests there, and creates what it renders as OLM's install
// scripts do: the CRDs first, once they are established the rest. The rendering must name
// image: the release as built here.
func createKustomizedRelease(ctx context.Context, kustomization, dir, image string) {
	GinkgoHelper()
	files, err := filepath.Glob(filepath.Join(kustomization, "*.yaml"))
	Expect(err).NotTo(HaveOccurred())
	for _, file := range files {
		data, err := os.ReadFile(file)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dir, filepath.Base(file)), data, 0o644)).To(Succeed())
	}
	rendered := run(ctx, workDir, tools.kustomize, "build", dir)
	Expect(rendered).To(ContainSubstring("image: "+image), "the kustomization of test/e2e/%s must install %s", kustomization, image)
	crds, rest := splitCRDs(rendered)
	crdsFile, restFile := filepath.Join(dir, "install-crds.yaml"), filepath.Join(dir, "install-rest.yaml")
	Expect(os.WriteFile(crdsFile, []byte(crds), 0o644)).To(Succeed())
	Expect(os.WriteFile(restFile, []byte(rest), 0o644)).To(Succeed())
	kubectl(ctx, "create", "-f", crdsFile)
	kubectl(ctx, "wait", "--for=condition=Established", "--timeout=60s", "-f", crdsFile)
	kubectl(ctx, "create", "-f", restFile)
}

// renderOLMRelease renders OLM's release manifests from the chart and values of its module,
// as OLM's scripts/package_release.sh does: helm template of a copy of the chart whose
// Chart.yaml carries the release's version (the packageserver's CSV is labelled with it),
// CRDs included, split as scripts/package_quickstart.sh splits them into the release's two
// assets, crds.yaml and olm.yaml. It returns the folder holding them and release.yaml, all
// of it.
func renderOLMRelease(ctx context.Context) string {
	GinkgoHelper()
	module := requiredEnv("OLM_MODULE", "the folder of OLM's module")
	dir := filepath.Join(workDir, "olm")
	chart := filepath.Join(workDir, "olm-chart")
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	run(ctx, workDir, "cp", "-R", filepath.Join(module, "deploy", "chart")+"/.", chart)
	run(ctx, workDir, "chmod", "-R", "u+w", chart)
	chartFile := filepath.Join(chart, "Chart.yaml")
	data, err := os.ReadFile(chartFile)
	Expect(err).NotTo(HaveOccurred())
	versionLine := regexp.MustCompile(`(?m)^[Vv]ersion:.*$`)
	Expect(versionLine.Match(data)).To(BeTrue(), "%s has no version", chartFile)
	data = versionLine.ReplaceAll(data, []byte("version: "+strings.TrimPrefix(olmVersion, "v")))
	Expect(os.WriteFile(chartFile, data, 0o644)).To(Succeed())
	release := run(ctx, workDir, requiredEnv("HELM", "helm"), "template", "olm", chart, "-n", olmNamespace,
		"-f", filepath.Join(module, "deploy", "upstream", "values.yaml"), "--include-crds")
	crds, rest := splitCRDs(release)
	Expect(os.WriteFile(filepath.Join(dir, "release.yaml"), []byte(release), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "crds.yaml"), []byte(crds), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "olm.yaml"), []byte(rest), 0o644)).To(Succeed())
	return dir
}

// splitCRDs splits a stream of manifests into its CustomResourceDefinitions and the rest.
func splitCRDs(manifests string) (crds, rest string) {
	var crdDocs, restDocs []string
	for _, document := range regexp.MustCompile(`(?m)^---\s*$`).Split(manifests, -1) {
		switch {
		case strings.TrimSpace(document) == "":
		case regexp.MustCompile(`(?m)^kind: CustomResourceDefinition$`).MatchString(document):
			crdDocs = append(crdDocs, document)
		default:
			restDocs = append(restDocs, document)
		}
	}
	return strings.Join(crdDocs, "\n---\n"), strings.Join(restDocs, "\n---\n")
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

	prefix := "/operator-framework/operator-lifecycle-manager/releases/download/" + olmVersion + "/"
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
