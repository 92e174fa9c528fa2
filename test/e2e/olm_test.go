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
	"regexp"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

// installPlanSettleTime is how long an installation is left alone before it is
// uninstalled; see uninstall.
const installPlanSettleTime = 5 * time.Second

// csvName names the CSV, and the catalog entry, of a release.
func csvName(version string) string { return packageName + ".v" + version }

// managerImage is the manager image of a release, as published.
func managerImage(version string) string { return imageTagBase + ":v" + version }

// bundleImage is the bundle image of a release, as published.
func bundleImage(version string) string { return imageTagBase + "-bundle:v" + version }

// expectInstalled waits until release version is installed in namespace through its
// Subscription: the InstallPlan Complete, the CRD established, the CSV Succeeded (which
// needs its Deployment available: the manager's pod running and ready), the manager pod
// running the release's image, and the Subscription at the latest release it knows of.
func expectInstalled(ctx context.Context, namespace, subscriptionName, version string) {
	GinkgoHelper()
	expectInstalledRunning(ctx, namespace, subscriptionName, version, managerImage(version))
}

// expectInstalledRunning is expectInstalled for a release whose manager runs image (a
// release that only renames an earlier one's bundle runs that one's image).
func expectInstalledRunning(ctx context.Context, namespace, subscriptionName, version, image string) {
	GinkgoHelper()
	expectCSVSucceeded(ctx, namespace, csvName(version))
	subscription := &operatorsv1alpha1.Subscription{}
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: subscriptionName}, subscription)).To(Succeed())
		g.Expect(subscription.Status.InstalledCSV).To(Equal(csvName(version)), "the Subscription's installed CSV")
		g.Expect(subscription.Status.InstallPlanRef).NotTo(BeNil(), "the Subscription names no InstallPlan")
		plan := &operatorsv1alpha1.InstallPlan{}
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: subscription.Status.InstallPlanRef.Name}, plan)).To(Succeed())
		g.Expect(plan.Status.Phase).To(Equal(operatorsv1alpha1.InstallPlanPhaseComplete), "InstallPlan %s: %s", plan.Name, plan.Status.Message)
		g.Expect(subscription.Status.State).To(BeEquivalentTo(operatorsv1alpha1.SubscriptionStateAtLatest), "the Subscription's state")
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
	expectCRDEstablished(ctx)
	expectManagerRunning(ctx, namespace, image)
}

func expectCRDEstablished(ctx context.Context) {
	GinkgoHelper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Name: fooCRD}, crd)).To(Succeed())
	Expect(crd.Status.Conditions).To(ContainElement(And(
		HaveField("Type", apiextensionsv1.Established), HaveField("Status", apiextensionsv1.ConditionTrue))),
		"CRD %s is not established", fooCRD)
}

// expectCSVSucceeded waits until the CSV name in namespace reaches Succeeded, and tells its
// phase, reason and message for as long as it has not.
func expectCSVSucceeded(ctx context.Context, namespace, name string) *operatorsv1alpha1.ClusterServiceVersion {
	GinkgoHelper()
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	Eventually(func(g Gomega) {
		// A manager that is denied a request may never turn ready, and the CSV then waits
		// for its Deployment until the timeout; the denial is the cause to report.
		if denied := persistentDenials(ctx, namespace); len(denied) > 0 {
			StopTrying(fmt.Sprintf("CSV %s/%s: the manager was denied requests, so the CSV's RBAC does not cover "+
				"what the operator does:\n%s", namespace, name, strings.Join(denied, "\n"))).Now()
		}
		g.Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, csv)).To(Succeed())
		g.Expect(csv.Status.Phase).To(Equal(operatorsv1alpha1.CSVPhaseSucceeded),
			"CSV %s/%s is %s (%s): %s", namespace, name, csv.Status.Phase, csv.Status.Reason, csv.Status.Message)
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
	return csv
}

// setCSVReplicas sets the replicas of the operator's Deployment in the CSV name, the way a
// user scales an operator that OLM v0 installed: OLM then applies it to the Deployment.
func setCSVReplicas(ctx context.Context, namespace, name string, replicas int32) {
	GinkgoHelper()
	csv := &operatorsv1alpha1.ClusterServiceVersion{}
	Expect(k8sClient.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, csv)).To(Succeed())
	patch := client.MergeFrom(csv.DeepCopy())
	deployments := csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	Expect(deployments).To(HaveLen(1), "the Deployments of CSV %s", name)
	deployments[0].Spec.Replicas = ptr.To(replicas)
	Expect(k8sClient.Patch(ctx, csv, patch)).To(Succeed())
}

// csvPhasesSince tells the phases csv went through from since on, as its status records
// them (OLM keeps the latest of them), or that it stayed in its phase.
func csvPhasesSince(csv *operatorsv1alpha1.ClusterServiceVersion, since time.Time) string {
	var phases []string
	for _, condition := range csv.Status.Conditions {
		if condition.LastTransitionTime != nil && !condition.LastTransitionTime.Time.Before(since) {
			phases = append(phases, fmt.Sprintf("%s %s (%s): %s", condition.LastTransitionTime.Format(time.TimeOnly),
				condition.Phase, condition.Reason, condition.Message))
		}
	}
	if len(phases) == 0 {
		return fmt.Sprintf("%s throughout (%s)", csv.Status.Phase, csv.Status.Reason)
	}
	return strings.Join(phases, "\n")
}

// installedOperator is the operator's Deployment in namespace, as OLM installed it: its
// pods, their restarts and its leader Lease.
func installedOperator(namespace string) *suite.InstalledOperator {
	operator, _ := installedOperators.LoadOrStore(namespace,
		&suite.InstalledOperator{Client: k8sClient, Clientset: clientset, Namespace: namespace, LogDir: keptLogDir()})
	return operator.(*suite.InstalledOperator)
}

// installedOperators holds one InstalledOperator per namespace for the whole run: it
// remembers the restarts of every pod it has seen, so that the restarts of a pod an upgrade
// replaced still count in its Restarts.
var installedOperators sync.Map

// expectManagerRunning waits until the operator's one pod in namespace runs image, ready. From
// the first time, the log of every manager pod there is followed (followOperatorLogs), so
// that expectNoForbidden reads the pods an upgrade replaces too.
func expectManagerRunning(ctx context.Context, namespace, image string) *corev1.Pod {
	GinkgoHelper()
	followOperatorLogs(namespace)
	var pod *corev1.Pod
	Eventually(func(g Gomega) {
		var err error
		pod, err = installedOperator(namespace).Pod(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(pod.Spec.Containers[0].Image).To(Equal(image), "the manager's image")
		g.Expect(pod.Status.ContainerStatuses).To(ConsistOf(HaveField("Ready", BeTrue())), "the manager is ready: %s", resources.DescribePod(pod))
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
	return pod
}

// deniedRequest matches how a denied request shows in the manager's log (its quotes escaped
// in the manager's JSON lines, not in the event broadcaster's klog lines): who was denied
// what, where.
var deniedRequest = regexp.MustCompile(`User \\?"([^"\\]+)\\?" cannot (\w+) resource \\?"([^"\\]+)\\?" ` +
	`in API group \\?"([^"\\]*)\\?" (?:in the namespace \\?"([^"\\]+)\\?"|at the cluster scope)`)

// handoverGrace is how long OLM may take to give the operator's ServiceAccount the RBAC of a
// new CSV. In an AllNamespaces installation, OLM's OperatorGroup controller copies the CSV's
// namespaced permissions to cluster scope after the CSV has succeeded; a manager that starts
// leading in between is denied for a moment, and its informers retry.
const handoverGrace = 30 * time.Second

// denial is a request the manager was denied, as its log tells.
type denial struct {
	pod, line                              string
	at                                     time.Time
	user, verb, resource, group, namespace string
}

// deniedRequests returns the requests that the operator's pods in namespace (their
// containers' current and previous runs) logged as denied, and what kept it from reading
// every line they logged: a pod list or a log that could not be read, a denial whose time
// could not be, no pod at all. A container that has not started has logged nothing.
func deniedRequests(ctx context.Context, namespace string) (denials []denial, unread []string) {
	var pods corev1.PodList
	if err := k8sClient.List(ctx, &pods, client.InNamespace(namespace), client.MatchingLabels{"control-plane": "controller-manager"}); err != nil {
		return nil, []string{fmt.Sprintf("listing the operator's pods in %s: %v", namespace, err)}
	}
	if len(pods.Items) == 0 {
		return nil, []string{"no operator pod in " + namespace + " whose log could tell"}
	}
	for _, pod := range pods.Items {
		if len(pod.Status.ContainerStatuses) == 0 {
			continue
		}
		status := pod.Status.ContainerStatuses[0]
		// The current run, unless it waits to start (its last run is then the previous one).
		var runs []bool
		if status.State.Waiting == nil {
			runs = append(runs, false)
		}
		if status.RestartCount > 0 {
			runs = append(runs, true)
		}
		for _, previous := range runs {
			logs, err := clientset.CoreV1().Pods(namespace).GetLogs(pod.Name,
				&corev1.PodLogOptions{Previous: previous, Timestamps: true}).DoRaw(ctx)
			if err != nil {
				unread = append(unread, fmt.Sprintf("the log of pod %s (previous run: %t): %v", pod.Name, previous, err))
				continue
			}
			for _, line := range strings.Split(string(logs), "\n") {
				d, ok, err := deniedLine(pod.Name, line)
				if err != nil {
					unread = append(unread, err.Error())
				}
				if ok {
					denials = append(denials, d)
				}
			}
		}
	}
	return denials, unread
}

// deniedLine tells whether a line of pod's log, read with the kubelet's timestamps, tells of
// a denial, and which. The time is the kubelet's, not the line's own: client-go's event
// broadcaster logs in klog's text format, which has no year, and the manager in JSON.
func deniedLine(pod, line string) (denial, bool, error) {
	stamp, text, found := strings.Cut(line, " ")
	if !found || !forbidden.MatchString(text) {
		return denial{}, false, nil
	}
	d := newDenial(pod, text)
	var err error
	if d.at, err = time.Parse(time.RFC3339Nano, stamp); err != nil {
		return d, true, fmt.Errorf("the kubelet's timestamp of a denial in the log of pod %s: %w: %s", pod, err, line)
	}
	return d, true, nil
}

// newDenial is the denial a log line of pod tells of: who was denied what, where (its time
// is the caller's: deniedLine takes it from the kubelet's timestamp).
func newDenial(pod, line string) denial {
	d := denial{pod: pod, line: line}
	if match := deniedRequest.FindStringSubmatch(line); match != nil {
		d.user, d.verb, d.resource, d.group, d.namespace = match[1], match[2], match[3], match[4], match[5]
	}
	return d
}

// forbidden matches any line of the manager's log that tells of a denial.
var forbidden = regexp.MustCompile(`(?i)forbidden`)

// allowedNow tells whether the user the denial names may now do what was denied.
func (d denial) allowedNow(ctx context.Context) bool {
	if d.user == "" {
		return false
	}
	allowed, err := serviceAccountAllowed(ctx, d.user,
		authorizationv1.ResourceAttributes{Namespace: d.namespace, Verb: d.verb, Group: d.group, Resource: d.resource})
	return err == nil && allowed
}

// serviceAccountAllowed asks the apiserver (a SubjectAccessReview) whether the ServiceAccount
// user may make request.
func serviceAccountAllowed(ctx context.Context, user string, request authorizationv1.ResourceAttributes) (bool, error) {
	namespace, name, err := serviceaccount.SplitUsername(user)
	if err != nil {
		return false, err
	}
	return harness.ServiceAccountAllowed(ctx, k8sClient, namespace, name, request)
}

// persistentDenials returns, as log lines, the denials of the operator in namespace that are
// not a moment of OLM's RBAC handover: the request is still denied, and was denied longer
// ago than OLM takes to hand over. A denial that never clears counts once its grace is over.
func persistentDenials(ctx context.Context, namespace string) []string {
	var lines []string
	// What could not be read yet (a pod still starting) is expectNoForbidden's to judge.
	denials, _ := deniedRequests(ctx, namespace)
	if logs := followedOperatorLogs(namespace); logs != nil {
		replaced, _ := logs.denials(true)
		denials = append(denials, replaced...)
	}
	for _, d := range denials {
		if clearedDenials[d.key()] {
			continue
		}
		if !d.allowedNow(ctx) && (d.at.IsZero() || time.Since(d.at) > handoverGrace) {
			lines = append(lines, d.pod+": "+d.line)
		}
	}
	return lines
}

// clearedDenials holds the denials (by denial.key) already seen to clear: moments of a
// handover. The pod that logged one can still be running, and its log read, during the next
// upgrade's handover, when the same request is denied again for a moment; judging the old
// line then would blame the RBAC for it.
var clearedDenials = map[string]bool{}

// key identifies a denial: the pod that logged it and the log line.
func (d denial) key() string { return d.pod + "\n" + d.line }

// expectNoForbidden checks that the operator's pods in namespace, those running and those an
// upgrade replaced since the operator was first seen running there, were never denied a
// request that its RBAC does not grant: the RBAC must cover all that the operator does, in
// every install mode. A denial during OLM's RBAC handover, which then clears, is reported.
func expectNoForbidden(ctx context.Context, namespace string) {
	GinkgoHelper()
	denials, unread := deniedRequests(ctx, namespace)
	logs := followedOperatorLogs(namespace)
	Expect(logs).NotTo(BeNil(), "the logs of the operator's pods in %s were not followed: expectManagerRunning starts that", namespace)
	replaced, problems := logs.denials(true)
	denials, unread = append(denials, replaced...), append(unread, problems...)
	lines, pods := logs.replacedLines()
	AddReportEntry("The logs of the operator's replaced pods in "+namespace, fmt.Sprintf("%d lines of %d pods", lines, pods))
	Expect(unread).To(BeEmpty(), "the operator's logs in %s, which must all be read to tell that no request was denied", namespace)
	for _, d := range denials {
		if clearedDenials[d.key()] {
			continue
		}
		if !Eventually(d.allowedNow).WithContext(ctx).WithTimeout(handoverGrace).Should(BeTrue(),
			"the CSV's RBAC does not cover what the operator does: %s: %s", d.pod, d.line) {
			continue
		}
		clearedDenials[d.key()] = true
		AddReportEntry("A denial during OLM's RBAC handover, which cleared",
			fmt.Sprintf("%s: %s %s %s/%s in %q at %s", d.pod, d.user, d.verb, d.group, d.resource, d.namespace, d.at.Format(time.RFC3339)))
	}
}

// uninstall deletes the Subscription and then the CSV, as the OLM documentation does, and
// waits until the operator and everything OLM created for it are gone.
func uninstall(ctx context.Context, namespace, csv string) {
	GinkgoHelper()
	// OLM's catalog operator may still be executing the InstallPlan in a worker that started
	// before another one marked it Complete; such a run creates again the plan's objects,
	// among them RBAC that nothing deletes once the CSV is gone. The API shows no sign of it,
	// so the installation is left alone for longer than such a run takes.
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
	expectUninstalled(ctx, namespace, csv)
}

// expectUninstalled waits until the CSV csv of namespace, its Deployment and pods, its
// ServiceAccount, its RBAC and its copies in other namespaces are gone; then deletes the
// bundle's ClusterRoles that OLM v0 leaves, as the catalog page tells users to.
func expectUninstalled(ctx context.Context, namespace, csv string) {
	GinkgoHelper()
	suite.ExpectGone(ctx, k8sClient,
		&operatorsv1alpha1.ClusterServiceVersion{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: csv}}, installTimeout)
	suite.ExpectGone(ctx, k8sClient,
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: operatorDeployment}}, installTimeout)
	suite.ExpectGone(ctx, k8sClient,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: operatorServiceAccount}}, installTimeout)
	expectNoRBACOf(ctx, namespace, csv)
	Eventually(func(g Gomega) {
		var copies operatorsv1alpha1.ClusterServiceVersionList
		g.Expect(k8sClient.List(ctx, &copies, client.MatchingFields{"metadata.name": csv})).To(Succeed())
		g.Expect(names(copies.Items)).To(BeEmpty(), "copies of CSV %s left behind", csv)
		var pods corev1.PodList
		g.Expect(k8sClient.List(ctx, &pods, client.InNamespace(namespace), client.MatchingLabels{"control-plane": "controller-manager"})).To(Succeed())
		g.Expect(names(pods.Items)).To(BeEmpty(), "pods of the operator left behind")
	}).WithContext(ctx).WithTimeout(installTimeout).Should(Succeed())
	deleteBundleClusterRoles(ctx)
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

// deleteBundleClusterRoles deletes the bundle's ClusterRoles that OLM v0 labels but never
// deletes (the Foo admin, editor and viewer roles and metrics-reader;
// operator-framework/operator-lifecycle-manager#2985) with the catalog page's command, and waits
// until no ClusterRole of the operator is left: OLM v1 refuses to install over them, and Helm
// to adopt them, whichever journey comes next.
func deleteBundleClusterRoles(ctx context.Context) {
	GinkgoHelper()
	kubectl(ctx, "delete", "clusterrole", "-l", "olm.managed=true,app.kubernetes.io/name="+packageName)
	Eventually(func(g Gomega) []string {
		var roles rbacv1.ClusterRoleList
		g.Expect(k8sClient.List(ctx, &roles)).To(Succeed())
		var left []string
		for _, role := range roles.Items {
			if strings.HasPrefix(role.Name, packageName+"-") {
				left = append(left, role.Name)
			}
		}
		return left
	}).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(BeEmpty(), "the operator's ClusterRoles left after OLM v0 uninstalled it")
}

// deleteCRD removes the Foo CRD, and with it every Foo, as a user does after uninstalling
// (OLM leaves CRDs), so that the next journey starts from a cluster without the operator.
func deleteCRD(ctx context.Context) {
	GinkgoHelper()
	crd := &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: fooCRD}}
	Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, crd))).To(Succeed())
	suite.ExpectGone(ctx, k8sClient, crd, installTimeout)
	deleteOperatorObjects(ctx)
}

// deleteOperatorObjects deletes the Operator objects (operators.coreos.com/v1, cluster-scoped,
// one per namespace it was installed in: foo-operator.<namespace>) that OLM v0 makes to list
// an operator's components and keeps once they are gone, as the catalog page's uninstall does. OLM
// makes one again while a component of it is left, so this comes once the CRD is gone.
func deleteOperatorObjects(ctx context.Context) {
	GinkgoHelper()
	left := func(g Gomega) []string {
		var operators operatorsv1.OperatorList
		err := k8sClient.List(ctx, &operators)
		if meta.IsNoMatchError(err) {
			return nil // no OLM v0 on the cluster
		}
		g.Expect(err).NotTo(HaveOccurred())
		var ours []string
		for _, operator := range operators.Items {
			if strings.HasPrefix(operator.Name, packageName+".") {
				ours = append(ours, operator.Name)
			}
		}
		return ours
	}
	for _, name := range left(Default) {
		kubectl(ctx, "delete", "--ignore-not-found", "operators.operators.coreos.com/"+name)
	}
	Eventually(left).WithContext(ctx).WithTimeout(operatorStepTimeout).Should(BeEmpty(), "the Operator objects OLM v0 kept of %s", packageName)
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
