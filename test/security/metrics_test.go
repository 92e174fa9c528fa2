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

package security

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/example/foo-operator/hack/localcluster/managerprocess"
	"github.com/example/foo-operator/test/harness"
)

var _ = Describe("The metrics endpoint", func() {
	var manager *managerprocess.Manager

	BeforeEach(func(ctx context.Context) {
		manager = environment.StartOperator(ctx, "metrics")
	})

	It("refuses an anonymous request", func(ctx context.Context) {
		status, _ := scrape(ctx, manager, "")
		Expect(status).To(Equal(http.StatusUnauthorized))
	})

	It("refuses an invalid token", func(ctx context.Context) {
		status, body := scrape(ctx, manager, "not-a-token")
		// controller-runtime's filter answers a token the apiserver rejects with 500, not 401
		// (the docs say so): what matters is that no metrics are served.
		Expect(status).To(Equal(http.StatusInternalServerError))
		Expect(body).To(ContainSubstring("Authentication failed"))
		Expect(body).NotTo(ContainSubstring("controller_runtime"))
	})

	It("refuses a valid token without the metrics-reader role", func(ctx context.Context) {
		status, _ := scrape(ctx, manager, metricsReaderToken(ctx, ""))
		Expect(status).To(Equal(http.StatusForbidden))
	})

	It("serves the metrics to a token bound to the metrics-reader role", func(ctx context.Context) {
		token := metricsReaderToken(ctx, harness.MetricsReaderRole)
		// The controller's own series appear once the manager leads and has started it;
		// the endpoint answers before that.
		Eventually(func(g Gomega) {
			status, body := scrape(ctx, manager, token)
			g.Expect(status).To(Equal(http.StatusOK))
			g.Expect(strings.Contains(body, `controller_runtime_reconcile_total{controller="foo-controller"`)).To(BeTrue(),
				"the foo-controller's reconcile_total series in the metrics served")
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	})
})

// scraper reads the metrics the way a Prometheus does, but for the certificate: the manager
// serves a self-signed one, and what is tested here is who may read them.
var scraper = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
	TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback, self-signed
}}

// scrape requests the metrics of manager with token (none if empty), once the endpoint
// listens, and returns the answer's status and body.
func scrape(ctx context.Context, manager *managerprocess.Manager, token string) (int, string) {
	GinkgoHelper()
	var status int
	var body []byte
	Eventually(func() error {
		request, err := http.NewRequestWithContext(ctx, http.MethodGet, manager.MetricsURL("https"), nil)
		if err != nil {
			return err
		}
		if token != "" {
			request.Header.Set("Authorization", "Bearer "+token)
		}
		response, err := scraper.Do(request)
		if err != nil {
			return err
		}
		defer func() { _ = response.Body.Close() }()
		status = response.StatusCode
		body, err = io.ReadAll(response.Body)
		return err
	}).WithContext(ctx).Should(Succeed(), "an answer from the metrics endpoint of %s", manager.Name)
	return status, string(body)
}

// metricsReaderToken creates a ServiceAccount, binds it to clusterRole unless that is empty,
// and returns a token of it.
func metricsReaderToken(ctx context.Context, clusterRole string) string {
	GinkgoHelper()
	c := environment.ControlPlane.Client
	namespace, err := environment.ControlPlane.CreateNamespace(ctx, "monitoring-")
	Expect(err).NotTo(HaveOccurred())
	account := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "prometheus"}}
	Expect(c.Create(ctx, account)).To(Succeed())
	if clusterRole != "" {
		Expect(c.Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: namespace + "-metrics"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: account.Name}},
		})).To(Succeed())
	}
	token, err := environment.ControlPlane.ServiceAccountToken(ctx, namespace, account.Name)
	Expect(err).NotTo(HaveOccurred())
	return token
}
