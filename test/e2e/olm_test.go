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
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

const (
	// catalogSourceName names the CatalogSource the catalog is published through.
	catalogSourceName = "foo-operator-catalog"
	// fooCRD names the CRD of the operator's API.
	fooCRD = "foos.tutorial.my.domain"
	// operatorDeployment and operatorServiceAccount name what the CSV installs.
	operatorDeployment     = "foo-operator-controller-manager"
	operatorServiceAccount = "foo-operator-controller-manager"
)

// Measured on two shared cores: install to Succeeded 10-20 s, upgrade about 6 s. The bounds
// leave room for a loaded machine; a broken install never gets there, so they cost nothing
// when the suite passes.
const (
	installTimeout = 3 * time.Minute
	catalogTimeout = time.Minute
	// installPlanSettleTime is longer than OLM takes to execute an InstallPlan once (seen:
	// up to 4 s on two loaded cores).
	installPlanSettleTime = 8 * time.Second
)

// catalogPublisher serves the catalog these tests choose, and points the CatalogSource at it.
type catalogPublisher struct {
	binary  string
	workDir string
	served  int
	server  *process
}

// publish serves catalog on a new loopback address and moves the CatalogSource there, as
// publishing a new catalog image moves a real one; the previous server is stopped once OLM
// reads the new one.
func (p *catalogPublisher) publish(ctx context.Context, catalog *testCatalog) {
	GinkgoHelper()
	By("publishing a catalog with releases " + catalog.versions())
	p.served++
	dir := filepath.Join(p.workDir, fmt.Sprintf("catalog-%d", p.served))
	addressFile := dir + ".address"
	Expect(catalog.write(dir)).To(Succeed())
	server, err := startProcess(logDir, fmt.Sprintf("catalog-server-%d", p.served), processEnv(), p.binary,
		"--catalog", dir, "--listen", "127.0.0.1:0", "--address-file", addressFile)
	Expect(err).NotTo(HaveOccurred())
	var address []byte
	Eventually(func() error {
		if !server.running() {
			return StopTrying("the catalog server exited: see " + server.logPath)
		}
		address, err = os.ReadFile(addressFile)
		return err
	}).WithContext(ctx).WithTimeout(catalogTimeout).Should(Succeed())

	source := &operatorsv1alpha1.CatalogSource{ObjectMeta: metav1.ObjectMeta{Name: catalogSourceName, Namespace: olmNamespace}}
	_, err = controllerutil.CreateOrUpdate(ctx, k8sClient, source, func() error {
		source.Spec.SourceType = operatorsv1alpha1.SourceTypeGrpc
		source.Spec.Address = string(address)
		source.Spec.DisplayName = "foo-operator"
		source.Spec.Publisher = "foo-operator end-to-end tests"
		return nil
	})
	Expect(err).NotTo(HaveOccurred())
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(source), source)).To(Succeed())
		state := source.Status.GRPCConnectionState
		g.Expect(state).NotTo(BeNil(), "OLM has not connected to the catalog yet")
		g.Expect(state.Address).To(Equal(string(address)))
		g.Expect(state.LastObservedState).To(Equal("READY"), "OLM's connection to the catalog at %s", state.Address)
	}).WithContext(ctx).WithTimeout(catalogTimeout).Should(Succeed())

	if p.server != nil {
		Expect(p.server.stop()).To(Succeed())
	}
	p.server = server
}

func (p *catalogPublisher) stop() {
	if p.server != nil {
		Expect(p.server.stop()).To(Succeed())
	}
}

// subscribe installs the operator into namespace through an OperatorGroup targeting
// targetNamespaces (none: all namespaces) and a Subscription to the stable channel,
// starting at startingCSV (empty: the channel's head), with automatic approval.
func subscribe(ctx context.Context, namespace string, targetNamespaces []string, startingCSV string) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &operatorsv1.OperatorGroup{
		ObjectMeta: metav1.ObjectMeta{Name: packageName, Namespace: namespace},
		Spec:       operatorsv1.OperatorGroupSpec{TargetNamespaces: targetNamespaces},
	})).To(Succeed())
	Expect(k8sClient.Create(ctx, &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Name: packageName, Namespace: namespace},
		Spec: &operatorsv1alpha1.SubscriptionSpec{
			CatalogSource: catalogSourceName, CatalogSourceNamespace: olmNamespace,
			Package: packageName, Channel: channelName, StartingCSV: startingCSV,
			InstallPlanApproval: operatorsv1alpha1.ApprovalAutomatic,
		},
	})).To(Succeed())
}

// expectInstalled waits until release version is installed in namespace: its InstallPlan
// Complete, the CRD established, the CSV Succeeded (which needs its Deployment available,
// that is, the manager running and ready), and the Subscription at the latest release it
// knows of, which tells that OLM is done with the installation.
func expectInstalled(ctx context.Context, namespace, version string) *operatorsv1alpha1.ClusterServiceVersion {
	GinkgoHelper()
	csv := expectCSVSucceeded(ctx, namespace, csvName(version))

	subscription := &operatorsv1alpha1.Subscription{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: packageName}, subscription)).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(subscription), subscription)).To(Succeed())
		g.Expect(subscription.Status.InstalledCSV).To(Equal(csvName(version)), "the Subscription's installed CSV")
		g.Expect(subscription.Status.InstallPlanRef).NotTo(BeNil(), "the Subscription names no InstallPlan")
		plan := &operatorsv1alpha1.InstallPlan{}
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: subscription.Status.InstallPlanRef.Name}, plan)).To(Succeed())
		g.Expect(plan.Spec.ClusterServiceVersionNames).To(ContainElement(csvName(version)))
		g.Expect(plan.Status.Phase).To(Equal(operatorsv1alpha1.InstallPlanPhaseComplete),
			"InstallPlan %s: %s", plan.Name, plan.Status.Message)
		g.Expect(subscription.Status.State).To(Equal(operatorsv1alpha1.SubscriptionState(operatorsv1alpha1.SubscriptionStateAtLatest)),
			"the Subscription's state")
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())

	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Name: fooCRD}, crd)).To(Succeed())
	Expect(crd.Status.Conditions).To(ContainElement(And(
		HaveField("Type", apiextensionsv1.Established), HaveField("Status", apiextensionsv1.ConditionTrue))),
		"CRD %s is not established", fooCRD)
	return csv
}

// expectCSVSucceeded waits until the CSV name in namespace reaches Succeeded, and tells its
// phase, reason and message for as long as it has not.
func expectCSVSucceeded(ctx context.Context, namespace, name string) *operatorsv1alpha1.ClusterServiceVersion {
	GinkgoHelper()
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	Eventually(func(g Gomega) {
		// A manager that is denied a request may never turn ready, and the CSV then waits
		// for its Deployment until the timeout; the denial is the cause to report.
		if denied := deniedRequestsIn(kubelet.logsOf(namespace)); len(denied) > 0 {
			StopTrying(fmt.Sprintf("CSV %s/%s: the manager was denied requests, so the CSV's RBAC does not cover "+
				"what the operator does:\n%s", namespace, name, strings.Join(denied, "\n"))).Now()
		}
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, csv)).To(Succeed())
		g.Expect(csv.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded),
			"CSV %s/%s is %s (%s): %s", namespace, name, csv.Status.Phase, csv.Status.Reason, csv.Status.Message)
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
	return csv
}

// expectGone waits until obj no longer exists.
func expectGone(ctx context.Context, obj client.Object, timeout time.Duration) {
	GinkgoHelper()
	Eventually(func() error {
		err := k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("%T %s still exists", obj, client.ObjectKeyFromObject(obj))
	}).WithContext(ctx).WithTimeout(timeout).Should(Succeed())
}

// uninstall deletes the Subscription and then the CSV, as the OLM documentation does, and
// waits until the operator and everything OLM created for it are gone.
func uninstall(ctx context.Context, namespace, csv string) {
	GinkgoHelper()
	// OLM's catalog operator may still be executing the InstallPlan in a worker that started
	// before another one marked it Complete; such a run takes seconds and creates again the
	// plan's objects, among them RBAC that nothing deletes once the CSV is gone. The API shows
	// no sign of it, so the installation is left alone for longer than such a run takes.
	Consistently(func(g Gomega) {
		installed := &operatorsv1alpha1.ClusterServiceVersion{}
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: csv}, installed)).To(Succeed())
		g.Expect(installed.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded))
	}).WithContext(ctx).WithTimeout(installPlanSettleTime).Should(Succeed())

	Expect(k8sClient.Delete(ctx, &operatorsv1alpha1.Subscription{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: packageName}})).To(Succeed())
	// The Subscription's InstallPlans go with it. Until they are gone, OLM may still execute
	// one, and so create again a CSV deleted meanwhile.
	Eventually(func(g Gomega) {
		var plans operatorsv1alpha1.InstallPlanList
		g.Expect(k8sClient.List(ctx, &plans, client.InNamespace(namespace))).To(Succeed())
		g.Expect(names(plans.Items)).To(BeEmpty(), "InstallPlans of the deleted Subscription")
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
	Expect(k8sClient.Delete(ctx, &operatorsv1alpha1.ClusterServiceVersion{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: csv}})).To(Succeed())

	expectGone(ctx, &operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: csv}}, installTimeout)
	expectGone(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: operatorDeployment}}, installTimeout)
	expectGone(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: operatorServiceAccount}}, installTimeout)
	expectNoRBACOf(ctx, namespace, csv)
	Eventually(func(g Gomega) {
		var copies operatorsv1alpha1.ClusterServiceVersionList
		g.Expect(k8sClient.List(ctx, &copies, client.MatchingFields{"metadata.name": csv})).To(Succeed())
		g.Expect(names(copies.Items)).To(BeEmpty(), "copies of CSV %s left behind", csv)
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
	Eventually(kubelet.running).WithArguments(namespace).WithTimeout(installTimeout).Should(BeZero(),
		"managers still running in %s", namespace)
}

// expectNoRBACOf waits until no Role, RoleBinding, ClusterRole or ClusterRoleBinding that OLM
// made for the CSV csv of namespace is left.
func expectNoRBACOf(ctx context.Context, namespace, csv string) {
	GinkgoHelper()
	ownedByCSV := client.MatchingLabels{"olm.owner": csv, "olm.owner.namespace": namespace}
	Eventually(func(g Gomega) {
		var roles rbacv1.RoleList
		g.Expect(k8sClient.List(ctx, &roles, ownedByCSV)).To(Succeed())
		g.Expect(names(roles.Items)).To(BeEmpty(), "Roles of %s left behind", csv)
		var roleBindings rbacv1.RoleBindingList
		g.Expect(k8sClient.List(ctx, &roleBindings, ownedByCSV)).To(Succeed())
		g.Expect(names(roleBindings.Items)).To(BeEmpty(), "RoleBindings of %s left behind", csv)
		var clusterRoles rbacv1.ClusterRoleList
		g.Expect(k8sClient.List(ctx, &clusterRoles, ownedByCSV)).To(Succeed())
		g.Expect(names(clusterRoles.Items)).To(BeEmpty(), "ClusterRoles of %s left behind", csv)
		var clusterRoleBindings rbacv1.ClusterRoleBindingList
		g.Expect(k8sClient.List(ctx, &clusterRoleBindings, ownedByCSV)).To(Succeed())
		g.Expect(names(clusterRoleBindings.Items)).To(BeEmpty(), "ClusterRoleBindings of %s left behind", csv)
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
}

// names lists the namespace/name of objects, for messages.
func names[T any, PT interface {
	*T
	client.Object
}](objects []T) []string {
	result := make([]string, 0, len(objects))
	for i := range objects {
		result = append(result, client.ObjectKeyFromObject(PT(&objects[i])).String())
	}
	return result
}
