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

// Package e2e proves that OLM installs, upgrades and uninstalls the operator from its
// catalog: real OLM (olm and catalog operators) against a real kube-apiserver with RBAC,
// the operator's manager binary run by a kubelet stand-in as the CSV's ServiceAccount.
// Run it with `make test-e2e`.
package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	olmcrds "github.com/operator-framework/api/crds"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// olmNamespace is where OLM runs and where the catalog is published to every namespace.
const olmNamespace = "olm"

var (
	k8sClient  client.Client
	clientset  kubernetes.Interface
	restConfig *rest.Config
	kubelet    *kubeletStandIn
	catalogs   *catalogPublisher

	// logDir keeps the output of every process the suite starts.
	logDir = os.Getenv("E2E_LOGS")
)

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "OLM lifecycle")
}

// requiredEnv returns the value of the environment variable name, which `make test-e2e` sets.
func requiredEnv(name, what string) string {
	value := os.Getenv(name)
	Expect(value).NotTo(BeEmpty(), "%s must name %s: run the suite with `make test-e2e`", name, what)
	return value
}

var _ = BeforeSuite(func(ctx SpecContext) {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	klog.SetOutput(GinkgoWriter)
	klog.LogToStderr(false)
	requiredEnv("KUBEBUILDER_ASSETS", "the folder holding kube-apiserver and etcd")
	requiredEnv("E2E_LOGS", "the folder for the logs of the processes the suite starts")
	olmBinary := requiredEnv("OLM", "OLM's olm operator binary")
	catalogOperatorBinary := requiredEnv("OLM_CATALOG", "OLM's catalog operator binary")
	catalogServerBinary := requiredEnv("CATALOG_SERVER", "the catalog server binary")
	managerBinary := requiredEnv("MANAGER", "the operator's manager binary")
	controllerManagerBinary := requiredEnv("KUBE_CONTROLLER_MANAGER", "the kube-controller-manager binary")

	Expect(os.RemoveAll(logDir)).To(Succeed())
	Expect(os.MkdirAll(logDir, 0o755)).To(Succeed())
	workDir := GinkgoT().TempDir()

	By("starting kube-apiserver (RBAC authorization) and etcd, with OLM's CRDs")
	apiServerLog, err := os.Create(filepath.Join(logDir, "kube-apiserver.log"))
	Expect(err).NotTo(HaveOccurred())
	etcdLog, err := os.Create(filepath.Join(logDir, "etcd.log"))
	Expect(err).NotTo(HaveOccurred())
	testEnv := &envtest.Environment{
		CRDs: []*apiextensionsv1.CustomResourceDefinition{
			olmcrds.CatalogSource(), olmcrds.ClusterServiceVersion(), olmcrds.InstallPlan(),
			olmcrds.OperatorGroup(), olmcrds.Operator(), olmcrds.Subscription(),
			olmcrds.OperatorCondition(), olmcrds.OLMConfig(),
		},
	}
	apiServer := testEnv.ControlPlane.GetAPIServer()
	apiServer.Out, apiServer.Err = apiServerLog, apiServerLog
	// Set, not left to envtest's default: the suite exists to prove that the CSV's RBAC
	// suffices, which only RBAC authorization can.
	auditPolicyFile := filepath.Join(workDir, "audit-policy.yaml")
	Expect(os.WriteFile(auditPolicyFile, []byte(auditPolicy), 0o644)).To(Succeed())
	apiServer.Configure().
		Set("authorization-mode", "RBAC").
		// The suite's network namespace has no default route for the apiserver to pick its
		// advertised address from, and nothing here reads the kubernetes Service's endpoints.
		Set("advertise-address", "127.0.0.1").
		Set("endpoint-reconciler-type", "none").
		Set("audit-policy-file", auditPolicyFile).
		Set("audit-log-path", auditLog())
	testEnv.ControlPlane.Etcd = &envtest.Etcd{Out: etcdLog, Err: etcdLog}
	restConfig, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		Expect(testEnv.Stop()).To(Succeed())
	})

	scheme := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	Expect(apiextensionsv1.AddToScheme(scheme)).To(Succeed())
	Expect(operatorsv1alpha1.AddToScheme(scheme)).To(Succeed())
	Expect(operatorsv1.AddToScheme(scheme)).To(Succeed())
	Expect(operatorsv2.AddToScheme(scheme)).To(Succeed())
	Expect(tutorialv1.AddToScheme(scheme)).To(Succeed())
	k8sClient, err = client.New(restConfig, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	clientset, err = kubernetes.NewForConfig(restConfig)
	Expect(err).NotTo(HaveOccurred())

	adminKubeconfig := filepath.Join(workDir, "admin.kubeconfig")
	Expect(writeKubeconfig(adminKubeconfig, restConfig.Host, restConfig.CAData, &clientcmdapi.AuthInfo{
		ClientCertificateData: restConfig.CertData, ClientKeyData: restConfig.KeyData,
	})).To(Succeed())

	By("starting kube-controller-manager's garbage collector, which deletes what an uninstalled CSV owned")
	startSuiteProcess("kube-controller-manager", processEnv(), controllerManagerBinary,
		"--kubeconfig="+adminKubeconfig, "--controllers=garbagecollector", "--leader-elect=false",
		"--secure-port=0", "--v=1")

	createNamespace(ctx, olmNamespace)

	// Both operators serve health and metrics on :8080, which is why `make test-e2e` runs the
	// suite in a network namespace of its own, where only loopback exists; the second one to
	// start logs that the port is taken and runs on.
	By("starting OLM's catalog operator")
	startSuiteProcess("olm-catalog-operator", processEnv(), catalogOperatorBinary,
		"--kubeconfig", adminKubeconfig, "--namespace", olmNamespace, "--writeStatusName", "")
	By("starting OLM's olm operator")
	startSuiteProcess("olm-operator", processEnv("KUBECONFIG="+adminKubeconfig), olmBinary,
		"--namespace", olmNamespace, "--writeStatusName", "", "--writePackageServerStatusName", "")

	By("starting the kubelet stand-in, which runs the manager for each Deployment OLM creates")
	kubelet = newKubeletStandIn(clientset, restConfig.Host, restConfig.CAData, managerBinary, logDir, workDir)
	kubeletCtx, stopKubelet := context.WithCancel(context.Background())
	Expect(kubelet.start(kubeletCtx)).To(Succeed())
	DeferCleanup(func() {
		stopKubelet()
		kubelet.stop()
	})

	catalogs = &catalogPublisher{binary: catalogServerBinary, workDir: workDir}
	DeferCleanup(catalogs.stop)
}, NodeTimeout(3*time.Minute))

// startSuiteProcess starts a process that runs for the whole suite and is stopped after it.
func startSuiteProcess(name string, env []string, binary string, args ...string) *process {
	p, err := startProcess(logDir, name, env, binary, args...)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		Expect(p.stop()).To(Succeed())
	})
	return p
}

// printedLogLines is how much of each process's log a failed run prints; the whole logs stay
// in the logs folder.
const printedLogLines = 150

// On failure, show what each process said: that is where the cause of a stuck CSV or a
// forbidden request is written.
var _ = ReportAfterSuite("process logs", func(report Report) {
	if report.SuiteSucceeded || logDir == "" {
		return
	}
	logs, _ := filepath.Glob(filepath.Join(logDir, "*.log"))
	for _, log := range logs {
		fmt.Printf("\n===== last %d lines of %s =====\n", printedLogLines, log)
		printTail(log, printedLogLines)
	}
	fmt.Printf("\nThe whole logs of every process are in %s\n", logDir)
})

func printTail(path string, lines int) {
	file, err := os.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer file.Close()
	var tail []string
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for scanner.Scan() {
		tail = append(tail, scanner.Text())
		if len(tail) > lines {
			tail = tail[1:]
		}
	}
	for _, line := range tail {
		fmt.Println(line)
	}
}

// writeKubeconfig writes a kubeconfig for server, trusted through ca, as authInfo.
func writeKubeconfig(path, server string, ca []byte, authInfo *clientcmdapi.AuthInfo) error {
	config := clientcmdapi.NewConfig()
	config.Clusters["e2e"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	config.AuthInfos["e2e"] = authInfo
	config.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "e2e"}
	config.CurrentContext = "e2e"
	return clientcmd.WriteToFile(*config, path)
}

func createNamespace(ctx context.Context, name string) {
	GinkgoHelper()
	Expect(k8sClient.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
}
