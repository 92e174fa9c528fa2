//go:build node

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

// Package node runs the operator as users do: on a node (kubelet, containerd, runc,
// kube-proxy, CoreDNS) of a local cluster, deployed from config/default with its image
// pulled from the cluster's registry. It checks what only a node can show: Pod Security
// admission of the real pod, probes, restarts, the Lease handed over between pods, metrics
// reached through the Service from another pod, friend pods that really run and terminate,
// and what a user sees when an image is missing. Run it with `make test-node` (as root).
package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/hack/localcluster"
	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
	"github.com/example/foo-operator/test/testcluster"
)

var (
	// provider gives the cluster, chosen by USE_EXISTING_CLUSTER (testcluster.FromEnv).
	provider  testcluster.Provider
	cluster   testcluster.Cluster
	k8sClient client.Client
	clientset kubernetes.Interface
	// operatorImage is the manager image the operator's Deployment runs, in the registry.
	operatorImage string
	// prometheusImage is the Prometheus the alerts' spec runs, in the registry.
	prometheusImage string
	// installed is what config/default rendered to, as deployed.
	installed []*unstructured.Unstructured
	// operator is the operator as config/default installs it; BeforeSuite fills in its cluster.
	operator = &suite.InstalledOperator{Namespace: harness.OperatorNamespace}
)

func TestNode(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(2 * time.Minute)
	SetDefaultEventuallyPollingInterval(200 * time.Millisecond)
	// A wait given the spec's context still ends at the default timeout, not only at the
	// spec's: every wait is bounded, and says what it saw last when it gives up.
	EnforceDefaultTimeoutsWhenUsingContexts()

	var err error
	workDir = t.TempDir()
	provider, err = testcluster.FromEnv(localcluster.Options{
		Dir: os.Getenv("NODE_TEST_DIR"), KeepLogs: true, Assets: localcluster.AssetsFromEnv(), Progress: GinkgoWriter,
		Node: true, Registry: true,
	}, workDir)
	if err != nil {
		t.Fatal(err)
	}
	suite.RunSpecsOn(t, provider, "Node suite")
}

// workDir holds what the suite writes besides the cluster: the operator's logs on a cluster
// the suite did not start, and the CAs of the metrics specs.
var workDir string

// requiredEnv returns the value of the environment variable name, which `make test-node` sets.
func requiredEnv(name, what string) string {
	GinkgoHelper()
	return suite.RequiredEnv(name, what, "make test-node")
}

var _ = BeforeSuite(func(ctx context.Context) {
	operatorImages := requiredEnv("OPERATOR_IMAGES", "the OCI image layout holding the manager image foo-operator:test")

	By("starting " + provider.Description())
	var err error
	cluster, err = provider.Start(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(cluster.Stop()).To(Succeed()) })
	k8sClient, err = client.New(cluster.RESTConfig(), client.Options{Scheme: harness.Scheme})
	Expect(err).NotTo(HaveOccurred())
	clientset, err = kubernetes.NewForConfig(cluster.RESTConfig())
	Expect(err).NotTo(HaveOccurred())
	if _, local := cluster.(*testcluster.Local); !local {
		suite.ExpectClusterLeftAsFound(ctx, cluster.RESTConfig())
	}
	operator.Client, operator.Clientset, operator.LogDir = k8sClient, clientset, filepath.Join(workDir, "logs")
	if local, ok := cluster.(*testcluster.Local); ok {
		// Beside the logs of the cluster's own processes.
		operator.LogDir = local.LogDir
	}
	Expect(os.MkdirAll(operator.LogDir, 0o755)).To(Succeed())

	By("pushing the manager image to the cluster's registry")
	images, err := cluster.ImageRegistry().PushLayout(ctx, operatorImages)
	Expect(err).NotTo(HaveOccurred())
	operatorImage = images["foo-operator:test"]
	Expect(operatorImage).NotTo(BeEmpty(), "%s holds no foo-operator image", operatorImages)
	prometheusImages := requiredEnv("PROMETHEUS_IMAGES", "the OCI image layout holding the Prometheus image the suite runs")
	images, err = cluster.ImageRegistry().PushLayout(ctx, prometheusImages)
	Expect(err).NotTo(HaveOccurred())
	Expect(images).To(HaveLen(1), "the images of %s", prometheusImages)
	for _, image := range images {
		prometheusImage = image
	}

	By("deploying config/default with the manager image " + operatorImage)
	installed, err = harness.DeployDefault(ctx, k8sClient, operatorImage, 1)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(undeploy)
	Expect(resources.WaitDeploymentAvailable(ctx, clientset, harness.OperatorNamespace, harness.OperatorDeployment, 2*time.Minute)).To(Succeed())
}, NodeTimeout(5*time.Minute))

// undeploy removes what config/default installed, as `make undeploy` does (the CRD, and so
// every Foo, with it), and waits for the operator's namespace to be gone: a cluster the suite
// did not start is left as it was found. A local cluster is stopped whole instead.
func undeploy(ctx context.Context) {
	if _, local := cluster.(*testcluster.Local); local {
		return
	}
	By("removing what config/default installed")
	for _, object := range slices.Backward(installed) {
		Expect(client.IgnoreNotFound(k8sClient.Delete(ctx, object, client.PropagationPolicy(metav1.DeletePropagationBackground)))).To(Succeed())
	}
	suite.ExpectGone(ctx, k8sClient, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: harness.OperatorNamespace}}, 2*time.Minute)
}

// On failure, show what the processes of a local cluster said; the operator's own log is
// printed by the spec that failed (operator.LogsOnFailure).
var _ = ReportAfterSuite("process logs", func(report Report) {
	if local, ok := cluster.(*testcluster.Local); ok && !report.SuiteSucceeded {
		fmt.Println(local.LogTails(80))
	}
})

// createNamespace creates a namespace with a generated name, deleted when the spec ends
// (suite.CreateNamespaces), and returns its name.
func createNamespace(ctx context.Context, prefix string, labels map[string]string) string {
	GinkgoHelper()
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix, Labels: labels}}
	suite.CreateNamespaces(ctx, k8sClient, 0, namespace)
	return namespace.Name
}

// runToCompletion creates pod and waits for it to end, then returns its exit code and log.
func runToCompletion(ctx context.Context, pod *corev1.Pod) (int32, string) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, pod)).To(Succeed())
	var last corev1.Pod
	Eventually(func() corev1.PodPhase {
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(pod), &last)).To(Succeed())
		return last.Status.Phase
	}).WithContext(ctx).Should(BeElementOf(corev1.PodSucceeded, corev1.PodFailed),
		func() string { return "pod " + pod.Name + " to end; it is " + resources.DescribePod(&last) })
	logs, err := clientset.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
	Expect(err).NotTo(HaveOccurred())
	Expect(last.Status.ContainerStatuses).To(HaveLen(1))
	return last.Status.ContainerStatuses[0].State.Terminated.ExitCode, string(logs)
}
