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

package packaging

import (
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/test/harness"
)

// TestMetricsCertificatePiecesAgree checks that the three pieces of a verified metrics
// scrape name the same things: the Secret config/metrics-certs mounts into the manager,
// the Secret and DNS name config/certmanager's Certificate issues, and the Secret and
// server name the ServiceMonitor's monitor_tls_patch.yaml verifies with; and that the name
// is the metrics Service's. (The node suite scrapes through it.)
func TestMetricsCertificatePiecesAgree(t *testing.T) {
	overlay, err := harness.Render("metrics-certs")
	if err != nil {
		t.Fatal(err)
	}
	deployment := harness.Find(overlay, "Deployment", harness.OperatorDeployment)
	if deployment == nil {
		t.Fatal("config/metrics-certs renders no operator Deployment")
	}
	volumes, _, _ := unstructured.NestedSlice(deployment.Object, "spec", "template", "spec", "volumes")
	var mounted string
	for _, volume := range volumes {
		if name, found, _ := unstructured.NestedString(volume.(map[string]any), "secret", "secretName"); found {
			mounted = name
		}
	}
	service := harness.Find(overlay, "Service", "foo-operator-controller-manager-metrics-service")
	if service == nil {
		t.Fatal("config/metrics-certs renders no metrics Service")
	}
	serviceName := service.GetName() + "." + service.GetNamespace() + ".svc"

	certificates, err := harness.Render("certmanager")
	if err != nil {
		t.Fatal(err)
	}
	certificate := harness.Find(certificates, "Certificate", "foo-operator-metrics-certs")
	if certificate == nil {
		t.Fatal("config/certmanager renders no Certificate foo-operator-metrics-certs")
	}
	issued, _, _ := unstructured.NestedString(certificate.Object, "spec", "secretName")
	dnsNames, _, _ := unstructured.NestedStringSlice(certificate.Object, "spec", "dnsNames")

	var patch []struct {
		Value struct {
			CA struct {
				Secret struct{ Name, Key string }
			}
			ServerName string `json:"serverName"`
		}
	}
	file := filepath.Join(repoRoot, "config", "prometheus", "monitor_tls_patch.yaml")
	if err := yaml.Unmarshal(harness.ReadFile(t, file), &patch); err != nil || len(patch) != 1 {
		t.Fatalf("config/prometheus/monitor_tls_patch.yaml is not one JSON patch operation: %v", err)
	}
	verified := patch[0].Value

	if mounted == "" || mounted != issued || mounted != verified.CA.Secret.Name {
		t.Errorf("the Secret the manager mounts (%q), the Certificate writes (%q) and the ServiceMonitor trusts (%q) differ",
			mounted, issued, verified.CA.Secret.Name)
	}
	if verified.ServerName != serviceName || !slices.Contains(dnsNames, serviceName) {
		t.Errorf("the metrics Service is %s; the ServiceMonitor verifies the name %q, the Certificate is for %v",
			serviceName, verified.ServerName, dnsNames)
	}
}
