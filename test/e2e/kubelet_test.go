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
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// serviceAccountDir is where a kubelet projects a pod's ServiceAccount token and namespace;
// operator-lib reads the operator's namespace from there.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// projectServiceAccount runs a command ("$@" after the folder "$1") with "$1" mounted at
// serviceAccountDir. It runs under `unshare --mount`, so the mounts are private to the
// command: a tmpfs over /var/run makes room for the mount point without creating it on the
// machine.
const projectServiceAccount = `set -e
mount -t tmpfs tmpfs /var/run
mkdir -p ` + serviceAccountDir + `
mount --bind "$1" ` + serviceAccountDir + `
shift
exec "$@"`

// kubeletStandIn plays the kubelet for the Deployments OLM creates: for each one it runs the
// project's manager binary as a local process, as the Deployment's ServiceAccount, with the
// pod template's args and environment, and reports the Deployment available once the
// manager answers its readiness probe. A changed pod template replaces the process, as a
// rollout replaces the pod; a process that exits is started again, as a container is.
type kubeletStandIn struct {
	clientset     kubernetes.Interface
	apiServerURL  string
	apiServerCA   []byte
	managerBinary string
	logDir        string
	workDir       string

	lister appslisters.DeploymentLister
	queue  workqueue.TypedRateLimitingInterface[types.NamespacedName]

	mu sync.Mutex
	// pods holds the process run for each Deployment.
	pods map[types.NamespacedName]*standInPod
	// started counts the pods started, to name their folders and logs.
	started int
	// managerLogs holds the log of every manager run, by namespace.
	managerLogs map[string][]string
}

// standInPod is the process that stands for the pod of one version of a pod template.
type standInPod struct {
	templateHash string
	process      *process
	// ready is closed once the manager answered its readiness probe.
	ready chan struct{}
}

func newKubeletStandIn(clientset kubernetes.Interface, apiServerURL string, apiServerCA []byte,
	managerBinary, logDir, workDir string) *kubeletStandIn {
	return &kubeletStandIn{
		clientset:     clientset,
		apiServerURL:  apiServerURL,
		apiServerCA:   apiServerCA,
		managerBinary: managerBinary,
		logDir:        logDir,
		workDir:       workDir,
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](
			200*time.Millisecond, 5*time.Second)),
		pods:        map[types.NamespacedName]*standInPod{},
		managerLogs: map[string][]string{},
	}
}

// start watches Deployments and syncs them until ctx is done.
func (k *kubeletStandIn) start(ctx context.Context) error {
	factory := informers.NewSharedInformerFactory(k.clientset, 0)
	deployments := factory.Apps().V1().Deployments()
	enqueue := func(obj any) {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			namespace, name, _ := cache.SplitMetaNamespaceKey(key)
			k.queue.Add(types.NamespacedName{Namespace: namespace, Name: name})
		}
	}
	if _, err := deployments.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
		DeleteFunc: func(obj any) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			enqueue(obj)
		},
	}); err != nil {
		return err
	}
	k.lister = deployments.Lister()
	factory.Start(ctx.Done())
	for informer, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			return fmt.Errorf("informer %v did not sync", informer)
		}
	}
	go k.work(ctx)
	return nil
}

func (k *kubeletStandIn) work(ctx context.Context) {
	for {
		key, shutdown := k.queue.Get()
		if shutdown {
			return
		}
		if err := k.sync(ctx, key); err != nil {
			klog.ErrorS(err, "Kubelet stand-in: sync failed, will retry", "deployment", key)
			k.queue.AddRateLimited(key)
		} else {
			k.queue.Forget(key)
		}
		k.queue.Done(key)
	}
}

// stop stops the watch and every process the stand-in started.
func (k *kubeletStandIn) stop() {
	k.queue.ShutDown()
	k.mu.Lock()
	defer k.mu.Unlock()
	for key, pod := range k.pods {
		if err := pod.process.stop(); err != nil {
			klog.ErrorS(err, "Kubelet stand-in: stopping the manager", "deployment", key)
		}
		delete(k.pods, key)
	}
}

// logsOf returns the logs of every manager run in namespace so far.
func (k *kubeletStandIn) logsOf(namespace string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.managerLogs[namespace]...)
}

// running counts the managers running in namespace.
func (k *kubeletStandIn) running(namespace string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	count := 0
	for key, pod := range k.pods {
		if key.Namespace == namespace && pod.process.running() {
			count++
		}
	}
	return count
}

// ready counts the managers running in namespace that answered their readiness probe.
func (k *kubeletStandIn) ready(namespace string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	count := 0
	for key, pod := range k.pods {
		if key.Namespace != namespace || !pod.process.running() {
			continue
		}
		select {
		case <-pod.ready:
			count++
		default:
		}
	}
	return count
}

// runningLogs returns the logs of the managers running now.
func (k *kubeletStandIn) runningLogs() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var logs []string
	for _, pod := range k.pods {
		if pod.process.running() {
			logs = append(logs, pod.process.logPath)
		}
	}
	return logs
}

// restartManagers stops the managers of namespace; each is started again, as a kubelet
// restarts a container that exited.
func (k *kubeletStandIn) restartManagers(namespace string) error {
	k.mu.Lock()
	var stopping []*process
	for key, pod := range k.pods {
		if key.Namespace == namespace {
			stopping = append(stopping, pod.process)
		}
	}
	k.mu.Unlock()
	for _, p := range stopping {
		if err := p.stop(); err != nil {
			return err
		}
	}
	return nil
}

func (k *kubeletStandIn) sync(ctx context.Context, key types.NamespacedName) error {
	deployment, err := k.lister.Deployments(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return k.stopPod(key)
	}
	if err != nil {
		return err
	}
	hash, err := templateHash(&deployment.Spec.Template)
	if err != nil {
		return err
	}

	k.mu.Lock()
	pod := k.pods[key]
	k.mu.Unlock()
	if pod != nil && (pod.templateHash != hash || !pod.process.running()) {
		if err := k.stopPod(key); err != nil {
			return err
		}
		pod = nil
	}
	if pod == nil {
		pod, err = k.startPod(ctx, key, deployment, hash)
		if err != nil {
			return err
		}
		k.mu.Lock()
		k.pods[key] = pod
		k.mu.Unlock()
		return nil
	}

	select {
	case <-pod.ready:
		return k.reportAvailable(ctx, deployment)
	default:
		return nil // the readiness watch requeues the Deployment when the manager is ready
	}
}

func (k *kubeletStandIn) stopPod(key types.NamespacedName) error {
	k.mu.Lock()
	pod := k.pods[key]
	delete(k.pods, key)
	k.mu.Unlock()
	if pod == nil {
		return nil
	}
	klog.InfoS("Kubelet stand-in: stopping manager", "deployment", key, "log", pod.process.logPath)
	return pod.process.stop()
}

// startPod runs the manager for deployment's pod template.
func (k *kubeletStandIn) startPod(ctx context.Context, key types.NamespacedName, deployment *appsv1.Deployment,
	hash string) (*standInPod, error) {
	template := deployment.Spec.Template
	if len(template.Spec.Containers) != 1 {
		return nil, fmt.Errorf("the pod template has %d containers; the stand-in runs exactly one", len(template.Spec.Containers))
	}
	container := template.Spec.Containers[0]

	k.mu.Lock()
	k.started++
	podName := fmt.Sprintf("%s-%d", key.Name, k.started)
	k.mu.Unlock()

	env, err := containerEnv(deployment, podName, container)
	if err != nil {
		return nil, err
	}
	token, err := k.clientset.CoreV1().ServiceAccounts(key.Namespace).CreateToken(ctx, template.Spec.ServiceAccountName,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}},
		metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("minting a token for ServiceAccount %s: %w", template.Spec.ServiceAccountName, err)
	}

	podDir := filepath.Join(k.workDir, key.Namespace+"-"+podName)
	saDir := filepath.Join(podDir, "serviceaccount")
	if err := os.MkdirAll(saDir, 0o755); err != nil {
		return nil, err
	}
	for file, content := range map[string][]byte{
		"namespace": []byte(key.Namespace), "token": []byte(token.Status.Token), "ca.crt": k.apiServerCA,
	} {
		if err := os.WriteFile(filepath.Join(saDir, file), content, 0o600); err != nil {
			return nil, err
		}
	}
	kubeconfig := filepath.Join(podDir, "kubeconfig")
	if err := writeKubeconfig(kubeconfig, k.apiServerURL, k.apiServerCA,
		&clientcmdapi.AuthInfo{Token: token.Status.Token}); err != nil {
		return nil, err
	}

	// The template's ports are the pod's own; here every manager shares the machine's
	// loopback, so each gets free ports.
	probeAddress, err := freeLoopbackAddress()
	if err != nil {
		return nil, err
	}
	metricsAddress, err := freeLoopbackAddress()
	if err != nil {
		return nil, err
	}
	args := overrideFlags(container.Args, map[string]string{
		"--health-probe-bind-address": probeAddress,
		"--metrics-bind-address":      metricsAddress,
	})

	unshareArgs := append([]string{"--mount", "--", "/bin/sh", "-c", projectServiceAccount, "sh", saDir, k.managerBinary}, args...)
	proc, err := startProcess(k.logDir, "manager-"+key.Namespace+"-"+podName,
		processEnv(append(env, "KUBECONFIG="+kubeconfig)...), "unshare", unshareArgs...)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	k.managerLogs[key.Namespace] = append(k.managerLogs[key.Namespace], proc.logPath)
	k.mu.Unlock()
	klog.InfoS("Kubelet stand-in: started manager", "deployment", key, "serviceAccount", template.Spec.ServiceAccountName,
		"args", args, "log", proc.logPath)

	pod := &standInPod{templateHash: hash, process: proc, ready: make(chan struct{})}
	go k.probe(key, pod, "http://"+probeAddress+"/readyz")
	return pod, nil
}

// probe polls the manager's readiness endpoint, as the template's readinessProbe asks, and
// requeues the Deployment when the manager turns ready and when it exits.
func (k *kubeletStandIn) probe(key types.NamespacedName, pod *standInPod, url string) {
	ticker := time.NewTicker(200 * time.Millisecond)
	defer ticker.Stop()
	client := &http.Client{Timeout: time.Second}
	for ready := false; !ready; {
		select {
		case <-pod.process.exited:
			k.queue.AddRateLimited(key)
			return
		case <-ticker.C:
		}
		if response, err := client.Get(url); err == nil {
			_ = response.Body.Close()
			ready = response.StatusCode == http.StatusOK
		}
	}
	close(pod.ready)
	k.queue.Add(key)
	<-pod.process.exited
	k.queue.AddRateLimited(key)
}

// reportAvailable writes the status a Deployment controller and kubelet would write for one
// ready, up-to-date replica; OLM waits for it before it declares the CSV Succeeded.
func (k *kubeletStandIn) reportAvailable(ctx context.Context, deployment *appsv1.Deployment) error {
	status := deployment.Status
	if status.ObservedGeneration == deployment.Generation && status.AvailableReplicas == 1 && status.UpdatedReplicas == 1 {
		return nil
	}
	now := metav1.Now()
	updated := deployment.DeepCopy()
	updated.Status = appsv1.DeploymentStatus{
		ObservedGeneration: deployment.Generation,
		Replicas:           1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1,
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable",
				Message: "The manager answers its readiness probe", LastUpdateTime: now, LastTransitionTime: now},
			{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable",
				Message: "The manager of this pod template runs", LastUpdateTime: now, LastTransitionTime: now},
		},
	}
	_, err := k.clientset.AppsV1().Deployments(deployment.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err == nil {
		klog.InfoS("Kubelet stand-in: reported Deployment available", "deployment", klog.KObj(deployment),
			"generation", deployment.Generation)
	}
	return err
}

func templateHash(template *corev1.PodTemplateSpec) (string, error) {
	encoded, err := json.Marshal(template)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(encoded)
	return hex.EncodeToString(sum[:8]), nil
}

// containerEnv resolves the container's environment as a kubelet would, for the sources a
// CSV's Deployment uses: literal values and the downward API's pod fields.
func containerEnv(deployment *appsv1.Deployment, podName string, container corev1.Container) ([]string, error) {
	if len(container.EnvFrom) > 0 {
		return nil, fmt.Errorf("container %s: envFrom is not supported by the stand-in", container.Name)
	}
	env := make([]string, 0, len(container.Env))
	for _, variable := range container.Env {
		value := variable.Value
		if source := variable.ValueFrom; source != nil {
			if source.FieldRef == nil {
				return nil, fmt.Errorf("container %s: env %s: only fieldRef sources are supported by the stand-in",
					container.Name, variable.Name)
			}
			var err error
			if value, err = podField(deployment, podName, source.FieldRef.FieldPath); err != nil {
				return nil, fmt.Errorf("container %s: env %s: %w", container.Name, variable.Name, err)
			}
		}
		env = append(env, variable.Name+"="+value)
	}
	return env, nil
}

var (
	annotationField = regexp.MustCompile(`^metadata\.annotations\['(.+)'\]$`)
	labelField      = regexp.MustCompile(`^metadata\.labels\['(.+)'\]$`)
)

// podField is the value of a downward-API fieldPath for the pod podName of deployment.
func podField(deployment *appsv1.Deployment, podName, path string) (string, error) {
	template := deployment.Spec.Template
	switch path {
	case "metadata.name":
		return podName, nil
	case "metadata.namespace":
		return deployment.Namespace, nil
	case "spec.serviceAccountName":
		return template.Spec.ServiceAccountName, nil
	}
	if match := annotationField.FindStringSubmatch(path); match != nil {
		return template.Annotations[match[1]], nil
	}
	if match := labelField.FindStringSubmatch(path); match != nil {
		return template.Labels[match[1]], nil
	}
	return "", fmt.Errorf("fieldPath %q is not supported by the stand-in", path)
}

// overrideFlags returns args with each flag of overrides set to its value, whether args set
// it as --flag=value or --flag value, or not at all.
func overrideFlags(args []string, overrides map[string]string) []string {
	result := make([]string, 0, len(args)+len(overrides))
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(args[i], "=")
		value, overridden := overrides[name]
		if !overridden {
			result = append(result, args[i])
			continue
		}
		if !hasValue && i+1 < len(args) {
			i++ // the value is the next argument
		}
		result = append(result, name+"="+value)
		seen[name] = true
	}
	for name, value := range overrides {
		if !seen[name] {
			result = append(result, name+"="+value)
		}
	}
	return result
}

// freeLoopbackAddress returns a loopback address with a port that is free now.
func freeLoopbackAddress() (string, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer listener.Close()
	return listener.Addr().String(), nil
}
