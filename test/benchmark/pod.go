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

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/example/foo-operator/test/benchmark/report"
	"github.com/example/foo-operator/test/harness"
)

// Where ours serves what the benchmark reads in its pod: plain metrics and pprof, reached
// through the apiserver's pod proxy. config/default serves metrics over TLS to authorized
// clients only, and the proxy forwards no credentials, so the benchmark's pod serves them
// plain, on ports nothing outside the node's namespace reaches.
const (
	podMetricsPort = 8080
	podPprofPort   = 6060
)

// operatorPod is ours running as the operator's pod on the local cluster's node: the
// Deployment of config/default with the manager image from the cluster's registry, as a user
// runs it. Its CPU and memory come from its container's cgroup; its log, heap profile and
// metrics come through the apiserver.
type operatorPod struct {
	c       *cluster
	image   string
	logPath string
	args    []string
	started time.Time

	pod     types.NamespacedName
	podUID  types.UID
	cgroup  string // the container's path in the cgroup v1 hierarchies
	exited  chan struct{}
	stopped chan struct{}
}

// startOperatorPod creates what config/default installs (the objects already there are
// kept: the bursts start ours again) with the manager image and extraArgs, and finds the pod.
func startOperatorPod(ctx context.Context, c *cluster, image string, extraArgs []string, logPath string) (*operatorPod, error) {
	objects, err := harness.Render("default")
	if err != nil {
		return nil, err
	}
	p := &operatorPod{c: c, image: image, logPath: logPath, exited: make(chan struct{}), stopped: make(chan struct{})}
	p.args = append([]string{
		"--health-probe-bind-address=:8081",
		fmt.Sprintf("--metrics-bind-address=:%d", podMetricsPort), "--metrics-secure=false",
		fmt.Sprintf("--pprof-bind-address=:%d", podPprofPort),
	}, extraArgs...)
	p.started = time.Now()
	for _, object := range objects {
		if object.GetKind() == "CustomResourceDefinition" {
			continue // the scenario's cluster has it already
		}
		if object.GetKind() == "Deployment" {
			if err := p.configure(object); err != nil {
				return nil, err
			}
		}
		if err := c.client.Create(ctx, object); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("creating %s %s: %w", object.GetKind(), object.GetName(), err)
		}
	}
	if err := p.findPod(ctx, 5*time.Minute); err != nil {
		return nil, err
	}
	go p.watchRestarts(ctx)
	return p, nil
}

// configure points the Deployment at the image and replaces the manager's flags. The
// manager runs without leader election: its Lease renewals would be API requests during
// the benchmark's quiet periods, and one replica has no one to elect.
func (p *operatorPod) configure(deployment *unstructured.Unstructured) error {
	containers, _, err := unstructured.NestedSlice(deployment.Object, "spec", "template", "spec", "containers")
	if err != nil || len(containers) == 0 {
		return fmt.Errorf("the Deployment of config/default has no containers (%v)", err)
	}
	manager := containers[0].(map[string]any)
	manager["image"] = p.image
	args := make([]any, 0, len(p.args))
	for _, arg := range p.args {
		args = append(args, arg)
	}
	manager["args"] = args
	return unstructured.SetNestedSlice(deployment.Object, containers, "spec", "template", "spec", "containers")
}

// findPod waits for the Deployment's pod to run, and finds its container's cgroup.
func (p *operatorPod) findPod(ctx context.Context, timeout time.Duration) error {
	lastSeen := "no pod yet"
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		pods, err := p.c.clientset.CoreV1().Pods(harness.OperatorNamespace).List(ctx, metav1.ListOptions{
			LabelSelector: "control-plane=controller-manager"})
		if err != nil {
			return false, err
		}
		for _, pod := range pods.Items {
			if pod.DeletionTimestamp != nil {
				continue
			}
			lastSeen = "pod " + pod.Name + ": " + string(pod.Status.Phase)
			if pod.Status.Phase != corev1.PodRunning {
				return false, nil
			}
			p.pod, p.podUID = types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}, pod.UID
			p.cgroup, err = containerCgroup(pod.UID)
			if err != nil {
				lastSeen = err.Error()
				return false, nil
			}
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the operator's pod to run (last seen: %s): %w", lastSeen, err)
	}
	return nil
}

// containerCgroup finds, among this machine's processes (the node's PID namespace is a
// child of this one), the manager of the pod with uid, and returns its cgroup: the
// kubelet puts every container in a cgroup under its pod's, named after the pod's UID.
func containerCgroup(uid types.UID) (string, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return "", err
	}
	for _, entry := range entries {
		if _, err := strconv.Atoi(entry.Name()); err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", entry.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "manager" {
			continue
		}
		cgroups, err := os.ReadFile(filepath.Join("/proc", entry.Name(), "cgroup"))
		if err != nil {
			continue
		}
		if path, ok := podCgroup(string(cgroups), uid); ok {
			return path, nil
		}
	}
	return "", fmt.Errorf("no manager process in a cgroup of pod %s yet", uid)
}

// podCgroup reads a process's /proc/PID/cgroup (lines of hierarchy-ID:controllers:path)
// and returns its path in the CPU accounting hierarchy if that lies under the cgroup of the
// pod with uid: the container's cgroup.
func podCgroup(cgroups string, uid types.UID) (string, bool) {
	for _, line := range strings.Split(cgroups, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || !slices.Contains(strings.Split(parts[1], ","), "cpuacct") {
			continue
		}
		for _, part := range strings.Split(parts[2], "/") {
			if part == "pod"+string(uid) {
				return parts[2], true
			}
		}
	}
	return "", false
}

// watchRestarts closes exited when the manager's container restarts or its pod goes. It
// watches the one pod rather than polling it, so that it sends no request while the
// benchmark measures.
func (p *operatorPod) watchRestarts(ctx context.Context) {
	defer close(p.exited)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.stopped:
			cancel()
		case <-ctx.Done():
		}
	}()
	pods := cache.NewListWatchFromClient(p.c.clientset.CoreV1().RESTClient(), "pods", p.pod.Namespace,
		fields.OneTermEqualSelector("metadata.name", p.pod.Name))
	ended := func(pod *corev1.Pod) bool {
		return pod.UID != p.podUID || pod.DeletionTimestamp != nil || restarts(pod) > 0
	}
	_, _ = watchtools.UntilWithSync(ctx, pods, &corev1.Pod{}, func(store cache.Store) (bool, error) {
		listed := store.List()
		// It was there when found: if the list has it no more, it has gone since.
		return len(listed) == 0 || ended(listed[0].(*corev1.Pod)), nil
	}, func(event watch.Event) (bool, error) {
		pod, ok := event.Object.(*corev1.Pod)
		return event.Type == watch.Deleted || (ok && ended(pod)), nil
	})
}

func restarts(pod *corev1.Pod) int32 {
	var count int32
	for _, status := range pod.Status.ContainerStatuses {
		count += status.RestartCount
	}
	return count
}

func (p *operatorPod) Name() string            { return report.Ours }
func (p *operatorPod) Started() time.Time      { return p.started }
func (p *operatorPod) Exited() <-chan struct{} { return p.exited }
func (p *operatorPod) LogHint() string         { return p.logPath }
func (p *operatorPod) Describe() string        { return "pod " + p.pod.String() }
func (p *operatorPod) readFile(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(p.c.cgroups.CgroupRoot(), name))
}

// WaitReady waits until the pod is Ready: its readiness probe passes.
func (p *operatorPod) WaitReady(ctx context.Context, timeout time.Duration) error {
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		pod, err := p.c.clientset.CoreV1().Pods(p.pod.Namespace).Get(ctx, p.pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, condition := range pod.Status.Conditions {
			if condition.Type == corev1.PodReady {
				return condition.Status == corev1.ConditionTrue, nil
			}
		}
		return false, nil
	})
}

// Log saves the container's log so far to the log file; once the pod is stopped, the file
// holds all of it.
func (p *operatorPod) Log(ctx context.Context) (string, error) {
	select {
	case <-p.stopped:
		return p.logPath, nil
	default:
	}
	data, err := p.c.clientset.CoreV1().Pods(p.pod.Namespace).GetLogs(p.pod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the log of %s: %w", p.Describe(), err)
	}
	return p.logPath, os.WriteFile(p.logPath, data, 0o644)
}

// cpuSeconds reads the CPU time of the container's cgroup.
func (p *operatorPod) cpuSeconds() (float64, error) {
	data, err := p.readFile(filepath.Join("cpuacct", p.cgroup, "cpuacct.usage"))
	if err != nil {
		return 0, err
	}
	nanos, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return float64(nanos) / 1e9, err
}

// peakRSSBytes reads the most memory the container's cgroup has held (its resident memory
// and page cache, which the kubelet counts against the limit).
func (p *operatorPod) peakRSSBytes() (int64, error) {
	data, err := p.readFile(filepath.Join("memory", p.cgroup, "memory.max_usage_in_bytes"))
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// proxyGet reads path from the pod's port through the apiserver's pod proxy.
func (p *operatorPod) proxyGet(ctx context.Context, port int, path string, params map[string]string) ([]byte, error) {
	request := p.c.clientset.CoreV1().RESTClient().Get().Namespace(p.pod.Namespace).Resource("pods").
		Name(fmt.Sprintf("%s:%d", p.pod.Name, port)).SubResource("proxy").Suffix(path)
	for name, value := range params {
		request = request.Param(name, value)
	}
	data, err := request.DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("GET %s from %s port %d: %w", path, p.Describe(), port, err)
	}
	return data, nil
}

func (p *operatorPod) heapAfterGCBytes(ctx context.Context) (int64, error) {
	body, err := p.proxyGet(ctx, podPprofPort, "debug/pprof/heap", map[string]string{"gc": "1", "debug": "1"})
	if err != nil {
		return 0, err
	}
	return heapAlloc(body, report.Ours)
}

func (p *operatorPod) profileCPU(ctx context.Context, duration time.Duration, path string) error {
	body, err := p.proxyGet(ctx, podPprofPort, "debug/pprof/profile", map[string]string{"seconds": strconv.Itoa(int(duration.Seconds()))})
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o644)
}

func (p *operatorPod) requestsByVerb(ctx context.Context) (map[string]float64, error) {
	body, err := p.proxyGet(ctx, podMetricsPort, "metrics", nil)
	if err != nil {
		return nil, err
	}
	return sumCounter(body, "rest_client_requests_total", "method", nil)
}

func (p *operatorPod) saveMetrics(ctx context.Context, path string) error {
	body, err := p.proxyGet(ctx, podMetricsPort, "metrics", nil)
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o644)
}

// stop saves the pod's log, deletes the Deployment and waits for its pod to go.
func (p *operatorPod) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	select {
	case <-p.stopped:
		return
	default:
	}
	if _, err := p.Log(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	close(p.stopped)
	foreground := metav1.DeletePropagationForeground
	err := p.c.clientset.AppsV1().Deployments(harness.OperatorNamespace).Delete(ctx, harness.OperatorDeployment,
		metav1.DeleteOptions{PropagationPolicy: &foreground})
	if err != nil && !apierrors.IsNotFound(err) {
		fmt.Fprintln(os.Stderr, "deleting the operator's Deployment:", err)
		return
	}
	// The bursts start ours again: its Deployment, deleted in the foreground, must be gone
	// with its pod, or creating it again would find the old one.
	err = wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, podErr := p.c.clientset.CoreV1().Pods(p.pod.Namespace).Get(ctx, p.pod.Name, metav1.GetOptions{})
		_, deploymentErr := p.c.clientset.AppsV1().Deployments(harness.OperatorNamespace).Get(ctx, harness.OperatorDeployment, metav1.GetOptions{})
		return apierrors.IsNotFound(podErr) && apierrors.IsNotFound(deploymentErr), nil
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "waiting for %s to go: %v\n", p.Describe(), err)
	}
}
