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

// Package e2e runs the ways users install the operator, each exactly as a user would:
// `operator-sdk run bundle` and `run bundle-upgrade` (in every install mode), a catalog image
// subscribed to and upgraded by publishing, `make deploy`, a release's install.yaml, the Helm
// chart, OLM v1; and `operator-sdk scorecard`. It runs on the cluster a testcluster.Provider
// gives: by default a local cluster with a real node that the suite starts, where OLM
// v0.46.0 and OLM v1 are installed from their release manifests and every image is built
// here (`make test-e2e`, as root); with USE_EXISTING_CLUSTER=true, the cluster of KUBECONFIG
// with its OLM, and the registry REGISTRY (`make test-e2e USE_EXISTING_CLUSTER=true`). The
// specs that need more of a cluster than its API (its node's runtime, its apiserver's
// process, its audit log) are labelled with that capability, and left out, saying so, where
// the provider lacks it.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/example/foo-operator/hack/localcluster"
	"github.com/example/foo-operator/hack/localcluster/olm"
	"github.com/example/foo-operator/hack/localcluster/process"
	"github.com/example/foo-operator/hack/localcluster/resources"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
	"github.com/example/foo-operator/test/testcluster"
)

const (
	packageName = "foo-operator"
	channelName = "stable"
	fooCRD      = "foos.tutorial.my.domain"
	// The names OLM gives what the bundle's CSV installs.
	operatorDeployment     = "foo-operator-controller-manager"
	operatorServiceAccount = "foo-operator-controller-manager"
	// registryAddress is the registry's address: fixed, as the images were built naming it,
	// and free, as the suite runs in a network namespace of its own (`make test-e2e`).
	registryAddress = "127.0.0.1:5000"
)

// Timeouts. OLM resolves, unpacks the bundle in a Job, installs and waits for the
// Deployment's pod: tens of seconds on a loaded machine.
const (
	installTimeout = 5 * time.Minute
	// operatorStepTimeout bounds how long the operator may take to follow one change.
	operatorStepTimeout = time.Minute
)

var (
	// provider gives the cluster, chosen by USE_EXISTING_CLUSTER (providerFromEnv).
	provider  testcluster.Provider
	cluster   testcluster.Cluster
	k8sClient client.Client
	clientset kubernetes.Interface
	tools     suiteTools
	// workDir holds what the suite writes besides the cluster: catalogs, the tools' home.
	workDir string
	// imageTagBase names the operator's images as published to the registry.
	imageTagBase string
)

// suiteTools are the programs a user runs, which the suite runs as they would.
type suiteTools struct {
	kubectl, operatorSDK, opm, kustomize, imagebuilder, crane, helm, helm3 string
	// imageStores are OCI image layouts of the images the suite pushes at its start.
	imageStores []string
	// checkout is the copy of the project whose images were built (its catalog/ names
	// them under imageTagBase); imageStore, the first of imageStores, holds them.
	checkout, imageStore string
}

func TestE2E(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyPollingInterval(250 * time.Millisecond)
	// OLM's steps are the slowest a wait meets; one given the spec's context still ends at
	// this default, not only at the spec's timeout, and says what it saw last.
	SetDefaultEventuallyTimeout(installTimeout)
	EnforceDefaultTimeoutsWhenUsingContexts()

	var err error
	workDir = t.TempDir()
	provider, err = providerFromEnv(workDir)
	if err != nil {
		t.Fatal(err)
	}
	suite.RunSpecsOn(t, provider, "OLM end to end")
}

// providerFromEnv is the provider USE_EXISTING_CLUSTER asks for (testcluster.FromEnv): the
// cluster of KUBECONFIG and REGISTRY, or a local cluster in E2E_DIR whose registry serves on
// registryAddress, mirrors the registries OLM's images are named in, and whose apiserver
// keeps an audit log of Foo status writes.
func providerFromEnv(workDir string) (testcluster.Provider, error) {
	dir := os.Getenv("E2E_DIR")
	auditPolicyFile := filepath.Join(workDir, "audit-policy.yaml")
	if err := os.WriteFile(auditPolicyFile, []byte(auditPolicy), 0o644); err != nil {
		return nil, err
	}
	return testcluster.FromEnv(localcluster.Options{
		Dir: dir, KeepLogs: true, Assets: localcluster.AssetsFromEnv(), Progress: GinkgoWriter,
		Node: true, Registry: true, RegistryAddress: registryAddress, RegistryMirrors: olm.Mirrors,
		APIServerFlags: map[string]string{"audit-policy-file": auditPolicyFile, "audit-log-path": filepath.Join(dir, "logs", auditLogName)},
	}, workDir)
}

// requiredEnv returns the value of the environment variable name, which `make test-e2e` sets.
func requiredEnv(name, what string) string {
	GinkgoHelper()
	return suite.RequiredEnv(name, what, "make test-e2e")
}

var _ = BeforeSuite(func(ctx context.Context) {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	klog.SetOutput(GinkgoWriter)
	klog.LogToStderr(false)
	tools = suiteTools{
		kubectl:      requiredEnv("KUBECTL", "kubectl"),
		operatorSDK:  requiredEnv("OPERATOR_SDK", "operator-sdk"),
		opm:          requiredEnv("OPM", "opm"),
		kustomize:    requiredEnv("KUSTOMIZE", "kustomize"),
		imagebuilder: requiredEnv("IMAGEBUILDER", "this project's imagebuilder"),
		crane:        requiredEnv("CRANE", "crane"),
		helm:         requiredEnv("HELM", "helm"),
		helm3:        requiredEnv("HELM3", "helm3"),
		imageStores:  strings.Fields(requiredEnv("IMAGE_STORES", "the image layouts to push")),
		checkout:     requiredEnv("IMAGE_CHECKOUT", "the copy of the project the images were built from"),
	}
	tools.imageStore = tools.imageStores[0]
	Expect(writeToolsHome(workDir)).To(Succeed())

	By("starting " + provider.Description())
	var err error
	cluster, err = provider.Start(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { Expect(cluster.Stop()).To(Succeed()) })
	imageTagBase = requiredEnv("IMAGE_TAG_BASE", "the repository the operator's images were built under")
	Expect(imageTagBase).To(HavePrefix(cluster.ImageRegistry().Host+"/"),
		"the images must be built for the registry of the cluster under test (IMAGE_TAG_BASE)")

	scheme := harness.NewScheme(apiextensionsv1.AddToScheme, operatorsv1alpha1.AddToScheme, operatorsv1.AddToScheme, operatorsv2.AddToScheme)
	k8sClient, err = client.New(cluster.RESTConfig(), client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	clientset, err = kubernetes.NewForConfig(cluster.RESTConfig())
	Expect(err).NotTo(HaveOccurred())
	if _, local := cluster.(*testcluster.Local); !local {
		suite.ExpectClusterLeftAsFound(ctx, cluster.RESTConfig())
	}
	DeferCleanup(startOperatorLogs())

	By("pushing every image built for the suite to the registry")
	for _, store := range tools.imageStores {
		started := time.Now()
		pushed, err := cluster.ImageRegistry().PushLayout(ctx, store)
		Expect(err).NotTo(HaveOccurred())
		GinkgoWriter.Printf("Pushed %d images of %s in %s\n", len(pushed), store, time.Since(started).Round(time.Millisecond))
	}
}, NodeTimeout(10*time.Minute))

// On failure, show what each process of the cluster said, and what the pods of OLM and of
// the operator are doing: that is where the cause of a stuck CSV or a failed unpack is.
var _ = ReportAfterSuite("cluster logs", func(report Report) {
	if local, ok := cluster.(*testcluster.Local); ok && !report.SuiteSucceeded {
		fmt.Println(local.LogTails(100))
	}
})

// measuredFaults collects the figures of the faults the operator met as OLM installed it (the
// upgrade under churn, then the node's faults), for the table at the end of the suite.
var measuredFaults []suite.FaultFigures

// The figures of every fault, as a table for docs/reliability.md; also appended to the file
// E2E_FAULTS_REPORT names, if any, so that several runs can be compared.
var _ = ReportAfterSuite("fault figures", func(Report) {
	suite.ReportFaultTable("Fault figures (OLM v0, from the catalog)", measuredFaults, "E2E_FAULTS_REPORT")
})

// keptLogDir is where the suite saves logs that outlive the run: beside the logs of the local
// cluster's processes, or in the suite's scratch folder on a cluster it did not start.
func keptLogDir() string {
	if local, ok := cluster.(*testcluster.Local); ok {
		return local.LogDir
	}
	return workDir
}

// describePodsOnFailure prints, if the current spec failed, what every pod outside
// kube-system is doing and the tail of its logs.
func describePodsOnFailure(ctx context.Context) {
	if !CurrentSpecReport().Failed() {
		return
	}
	pods, err := clientset.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		GinkgoWriter.Printf("listing pods: %v\n", err)
		return
	}
	for _, pod := range pods.Items {
		if pod.Namespace == "kube-system" {
			continue
		}
		GinkgoWriter.Printf("Pod %s/%s: %s\n", pod.Namespace, pod.Name, resources.DescribePod(&pod))
		for _, container := range pod.Spec.Containers {
			logs, err := clientset.CoreV1().Pods(pod.Namespace).GetLogs(pod.Name, &corev1.PodLogOptions{
				Container: container.Name, TailLines: ptr.To[int64](30)}).DoRaw(ctx)
			GinkgoWriter.Printf("  log of %s (%v):\n%s\n", container.Name, err, indent(string(logs)))
		}
	}
}

func indent(text string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n    ")
}

// writeToolsHome writes the home folder the suite runs the tools in: opm and operator-sdk
// pull images with containers/image, which wants a signature policy (containers-common's
// policy.json on most machines); this one accepts any image.
func writeToolsHome(dir string) error {
	policyDir := filepath.Join(dir, "home", ".config", "containers")
	if err := os.MkdirAll(policyDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(policyDir, "policy.json"), []byte(`{"default":[{"type":"insecureAcceptAnything"}]}`), 0o644)
}

// run runs a tool as a user would, in dir (the working folder, when the tool writes into
// it), with the cluster's kubeconfig and the registry's CA added to the machine's trust,
// and returns its output; it fails the spec with the output if the tool fails.
func run(ctx context.Context, dir, binary string, args ...string) string {
	GinkgoHelper()
	output, err := runTool(ctx, dir, binary, args...)
	Expect(err).NotTo(HaveOccurred(), "all it wrote, stdout and stderr as they came:\n%s", output)
	return output
}

// runTool is run, returning the tool's error (a *process.ToolError) instead of failing.
func runTool(ctx context.Context, dir, binary string, args ...string) (string, error) {
	return runToolWithEnv(ctx, dir, nil, binary, args...)
}

// runToolWithEnv is runTool with env added to (or replacing) the tool's environment. The
// output is stdout and stderr as they came, as a user reads them: the tools the suite checks
// the words of (operator-sdk, helm push) say them on stderr.
func runToolWithEnv(ctx context.Context, dir string, env []string, binary string, args ...string) (string, error) {
	GinkgoWriter.Printf("$ %s %s\n", filepath.Base(binary), strings.Join(args, " "))
	env = append(append(os.Environ(),
		"KUBECONFIG="+cluster.KubeconfigPath(), "SSL_CERT_FILE="+cluster.ImageRegistry().TrustBundle,
		"HOME="+filepath.Join(workDir, "home"), "KUBECTL="+tools.kubectl, "KUSTOMIZE="+tools.kustomize), env...)
	started := time.Now()
	output, err := process.RunTool(ctx, dir, env, binary, args...)
	// The exit alone (the error's Unwrap): what the tool wrote to stderr is in the output.
	GinkgoWriter.Printf("%s(%s, %s)\n", shorten(string(output.Combined)), process.DescribeExit(errors.Unwrap(err)),
		time.Since(started).Round(100*time.Millisecond))
	return string(output.Combined), err
}

// shorten keeps a long output (a rendered manifest) to its first and last lines in the log.
func shorten(output string) string {
	const keep = 25
	lines := strings.SplitAfter(output, "\n")
	if len(lines) <= 3*keep {
		return output
	}
	return strings.Join(lines[:keep], "") + fmt.Sprintf("... (%d lines) ...\n", len(lines)-2*keep) + strings.Join(lines[len(lines)-keep:], "")
}

// kubectl runs kubectl as a user would, from the suite's folder.
func kubectl(ctx context.Context, args ...string) {
	GinkgoHelper()
	run(ctx, workDir, tools.kubectl, args...)
}

// scratchDir makes an empty folder for a tool that writes into its working folder
// (operator-sdk run bundle keeps caches there).
func scratchDir(name string) string {
	GinkgoHelper()
	dir := filepath.Join(workDir, name)
	Expect(os.RemoveAll(dir)).To(Succeed())
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	return dir
}

// newNamespace is a namespace for createNamespaces.
// earlierReleases are the releases cut before the one in the making, oldest first, and
// newestRelease is the one in the making (the Makefile's VERSION), as this checkout has them:
// the journeys without OLM install each earlier one and upgrade it to the newest. Read when
// the specs are made, from the project the suite runs in (test/e2e).
var earlierReleases, newestRelease = func() ([]string, string) {
	earlier, newest, err := harness.Releases(filepath.Join("..", ".."))
	if err != nil {
		panic(fmt.Sprintf("reading the project's releases: %v", err))
	}
	return earlier, newest
}()

func newNamespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// createNamespaces creates namespaces, deleted when the spec (or the container, from a
// BeforeAll) ends, all at once, and waited for (suite.CreateNamespaces).
func createNamespaces(ctx context.Context, namespaces ...*corev1.Namespace) {
	GinkgoHelper()
	suite.CreateNamespaces(ctx, k8sClient, installTimeout, namespaces...)
}
