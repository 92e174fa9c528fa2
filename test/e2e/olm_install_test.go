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
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/hack/localcluster/olm"
	"github.com/example/foo-operator/test/testcluster"
)

// Where each OLM runs, as the cluster under test has it: found by ensureOLMv0 and
// ensureOLMv1 from the Deployments of OLM's operators ("olm" and "olmv1-system" as their
// releases install them). The catalog page's CatalogSource goes in olmNamespace, OLM v0's global
// catalog namespace there.
var olmNamespace, olmv1Namespace string

// ensureOLMv0 makes sure that OLM v0 runs on the cluster under test, for a journey that
// installs with it: the suite installs it on its local cluster (once); an existing cluster
// must have it, or the journey fails naming what is missing.
func ensureOLMv0(ctx context.Context) {
	GinkgoHelper()
	if olmNamespace != "" {
		return
	}
	if local, ok := cluster.(*testcluster.Local); ok {
		installOLM(ctx, local)
	}
	olmNamespace = expectOLM(ctx, "OLM v0 (`operator-sdk olm install` installs it)",
		[]string{"clusterserviceversions", "subscriptions", "catalogsources", "operatorgroups", "installplans"}, "operators.coreos.com",
		"olm-operator", "catalog-operator")
}

// ensureOLMv1 is ensureOLMv0 for OLM v1 (catalogd and operator-controller).
func ensureOLMv1(ctx context.Context) {
	GinkgoHelper()
	if olmv1Namespace != "" {
		return
	}
	if local, ok := cluster.(*testcluster.Local); ok {
		started := time.Now()
		Expect(local.InstallOLMv1(ctx)).To(Succeed())
		AddReportEntry("OLM v1 installed and available in", time.Since(started).Round(time.Second).String())
	}
	olmv1Namespace = expectOLM(ctx, "OLM v1 (operator-controller's release manifests install it)",
		[]string{"clusterextensions", "clustercatalogs"}, "olm.operatorframework.io",
		"operator-controller-controller-manager", "catalogd-controller-manager")
}

// expectOLM checks, asking the cluster's API, that an OLM is there and ready: its CRDs
// (resources of group) established, and its operators' Deployments available, in one
// namespace, which it returns. It fails naming each piece that is missing.
func expectOLM(ctx context.Context, what string, resources []string, group string, deployments ...string) string {
	GinkgoHelper()
	var missing []string
	for _, resource := range resources {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := k8sClient.Get(ctx, client.ObjectKey{Name: resource + "." + group}, crd); err != nil {
			missing = append(missing, fmt.Sprintf("CRD %s.%s (%v)", resource, group, err))
		} else if !crdEstablished(crd) {
			missing = append(missing, fmt.Sprintf("CRD %s.%s established", resource, group))
		}
	}
	namespace := ""
	for _, name := range deployments {
		var list appsv1.DeploymentList
		Expect(k8sClient.List(ctx, &list, client.MatchingFields{"metadata.name": name})).To(Succeed())
		if len(list.Items) != 1 {
			missing = append(missing, fmt.Sprintf("one Deployment %s (found %d)", name, len(list.Items)))
			continue
		}
		deployment := list.Items[0]
		if namespace == "" {
			namespace = deployment.Namespace
		}
		if deployment.Namespace != namespace {
			missing = append(missing, fmt.Sprintf("Deployment %s in namespace %s, beside %s", name, namespace, deployments[0]))
		}
		if deployment.Status.AvailableReplicas == 0 {
			missing = append(missing, fmt.Sprintf("an available replica of Deployment %s/%s", deployment.Namespace, name))
		}
	}
	Expect(missing).To(BeEmpty(), "%s is not ready on %s: missing %s", what, provider.Description(), strings.Join(missing, "; "))
	return namespace
}

// crdEstablished tells whether the apiserver serves a CRD's resource.
func crdEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, condition := range crd.Status.Conditions {
		if condition.Type == apiextensionsv1.Established {
			return condition.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

// installOLM installs OLM v0 with the local-cluster library, as `make cluster OLM=v0` does,
// then asks operator-sdk whether OLM is healthy.
func installOLM(ctx context.Context, local *testcluster.Local) {
	GinkgoHelper()
	By("installing OLM " + olm.V0Version + " from its release manifests, with its images built here")
	releaseDir, err := local.InstallOLMv0(ctx)
	Expect(err).NotTo(HaveOccurred())

	By("asking operator-sdk whether OLM is healthy")
	proxy, trust := serveOLMRelease(releaseDir)
	output, err := runToolWithEnv(ctx, workDir, []string{"HTTPS_PROXY=" + proxy, "SSL_CERT_FILE=" + trust},
		tools.operatorSDK, "olm", "status", "--olm-namespace", olm.V0Namespace)
	Expect(err).NotTo(HaveOccurred(), output)
	Expect(output).To(ContainSubstring(`Successfully got OLM status for version \"` + strings.TrimPrefix(olm.V0Version, "v") + `\"`))
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

	prefix := "/operator-framework/operator-lifecycle-manager/releases/download/" + olm.V0Version + "/"
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

	registryTrust, err := os.ReadFile(cluster.ImageRegistry().TrustBundle)
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
