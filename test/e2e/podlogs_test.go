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
	"bufio"
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// podLogs follows the log of every manager pod of a namespace as pods come and go: a pod an
// upgrade replaces is gone when the upgrade is over, and its log with it, so its lines are
// read as it writes them.
type podLogs struct {
	namespace string
	following sync.WaitGroup

	mu sync.Mutex
	// pods holds every manager pod seen, by name.
	pods map[string]*observedPod
}

// observedPod is a manager pod as it was seen.
type observedPod struct {
	image string
	// deployment is the UID of the Deployment whose ReplicaSet made the pod ("" for a bare
	// pod): an upgrade replaces pods of one Deployment, an uninstall deletes it.
	deployment types.UID
	// running is when its container was first and last seen running.
	firstRunning, lastRunning time.Time
	// gone is set once the pod was seen deleted; deleting is when its deletion began.
	gone     bool
	deleting time.Time
	// lines are its log lines, each prefixed by the kubelet with the time it was written.
	lines []string
	// followedRestarts is the restart count of the container whose log is followed, -1 if none.
	followedRestarts int32
	// followErrors are why following a log of it failed: lines it may have logged and that no
	// check read.
	followErrors []error
}

func newPodLogs(namespace string) *podLogs {
	return &podLogs{namespace: namespace, pods: map[string]*observedPod{}}
}

// lookAtPods notes the manager pods running now, and follows the log of each container it
// has not followed yet.
func (l *podLogs) lookAtPods(ctx context.Context) {
	var pods corev1.PodList
	if err := k8sClient.List(ctx, &pods, client.InNamespace(l.namespace), client.MatchingLabels{"control-plane": "controller-manager"}); err != nil {
		return
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	listed := map[string]bool{}
	for _, pod := range pods.Items {
		listed[pod.Name] = true
		observed := l.pods[pod.Name]
		if observed == nil {
			observed = &observedPod{image: pod.Spec.Containers[0].Image, followedRestarts: -1, deployment: owningDeployment(ctx, &pod)}
			l.pods[pod.Name] = observed
		}
		if pod.DeletionTimestamp != nil && observed.deleting.IsZero() {
			observed.deleting = pod.DeletionTimestamp.Add(-time.Duration(ptr.Deref(pod.DeletionGracePeriodSeconds, 0)) * time.Second)
		}
		if len(pod.Status.ContainerStatuses) == 0 {
			continue
		}
		status := pod.Status.ContainerStatuses[0]
		if status.State.Running != nil {
			if observed.firstRunning.IsZero() {
				observed.firstRunning = now
			}
			observed.lastRunning = now
		}
		if (status.State.Running != nil || status.State.Terminated != nil) && status.RestartCount != observed.followedRestarts {
			observed.followedRestarts = status.RestartCount
			l.following.Go(func() { l.follow(ctx, pod.Name) })
		}
	}
	for name, pod := range l.pods {
		if !listed[name] {
			pod.gone = true
		}
	}
}

// follow reads the log of the current container of pod until it ends, and keeps each line.
// A failure, but the recording's own end, is kept for denials to report.
func (l *podLogs) follow(ctx context.Context, pod string) {
	failed := func(err error) {
		if ctx.Err() != nil {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.pods[pod].followErrors = append(l.pods[pod].followErrors, err)
	}
	stream, err := clientset.CoreV1().Pods(l.namespace).GetLogs(pod, &corev1.PodLogOptions{Follow: true, Timestamps: true}).Stream(ctx)
	if err != nil {
		failed(fmt.Errorf("following the log of pod %s: %w", pod, err))
		return
	}
	defer func() { _ = stream.Close() }()
	scanner := bufio.NewScanner(stream)
	scanner.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for scanner.Scan() {
		l.mu.Lock()
		l.pods[pod].lines = append(l.pods[pod].lines, scanner.Text())
		l.mu.Unlock()
	}
	if err := scanner.Err(); err != nil {
		failed(fmt.Errorf("reading the log of pod %s: %w", pod, err))
	}
}

// owningDeployment is the UID of the Deployment that owns the ReplicaSet that owns pod, or ""
// for a pod no Deployment made (or whose ReplicaSet is gone already).
func owningDeployment(ctx context.Context, pod *corev1.Pod) types.UID {
	owner := metav1.GetControllerOf(pod)
	if owner == nil || owner.Kind != "ReplicaSet" {
		return ""
	}
	var replicaSet appsv1.ReplicaSet
	if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: owner.Name}, &replicaSet); err != nil {
		return ""
	}
	if deployment := metav1.GetControllerOf(&replicaSet); deployment != nil && deployment.Kind == "Deployment" {
		return deployment.UID
	}
	return ""
}

// denials are the requests the manager pods (all of them, or only the replaced ones) logged
// as denied, with the time the kubelet recorded for each line; problems say why the logs
// cannot vouch for that: a log that could not be followed, a pod seen running that logged
// nothing read (a manager logs as it starts), a denial whose time cannot be read. Of only the
// replaced pods, what each logged once its deletion began is left out: an uninstall
// deletes the operator's RBAC as it deletes its pod, whose informers then log denials on
// their way out (the handover, which reads all, judges those of an upgrade itself).
func (l *podLogs) denials(onlyReplaced bool) (denials []denial, problems []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	replaced := l.replaced()
	for name, pod := range l.pods {
		if onlyReplaced && !replaced[name] {
			continue
		}
		for _, err := range pod.followErrors {
			problems = append(problems, err.Error())
		}
		if !pod.firstRunning.IsZero() && len(pod.lines) == 0 {
			problems = append(problems, "pod "+name+" ran, but no line of its log was read")
		}
		for _, line := range pod.lines {
			d, ok, err := deniedLine(name, line)
			if err != nil {
				problems = append(problems, err.Error())
			}
			if ok && (!onlyReplaced || pod.deleting.IsZero() || d.at.Before(pod.deleting)) {
				denials = append(denials, d)
			}
		}
	}
	sort.Slice(denials, func(i, j int) bool { return denials[i].at.Before(denials[j].at) })
	return denials, problems
}

// replaced are the pods, by name, seen deleted that a Deployment of the pods there now made,
// as an upgrade replaces them; the pods of an earlier install, uninstalled since, are not.
// The caller holds l.mu.
func (l *podLogs) replaced() map[string]bool {
	current := map[types.UID]bool{}
	for _, pod := range l.pods {
		if !pod.gone {
			current[pod.deployment] = true
		}
	}
	replaced := map[string]bool{}
	for name, pod := range l.pods {
		if pod.gone && current[pod.deployment] {
			replaced[name] = true
		}
	}
	return replaced
}

// replacedLines is how many log lines were read of the replaced pods, and how many they are.
func (l *podLogs) replacedLines() (lines, pods int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for name := range l.replaced() {
		pods++
		lines += len(l.pods[name].lines)
	}
	return lines, pods
}

// operatorLogPollInterval is how often a namespace's manager pods are listed: a pod that
// starts and is deleted within it may be missed, which a manager that starts, leads and
// reconciles does not.
const operatorLogPollInterval = time.Second

// operatorLogs follows, from the first time a journey sees the operator running in a
// namespace until the namespace is deleted or the suite ends, the log of every manager pod
// there, by namespace: expectNoForbidden reads in it the pods an upgrade replaced.
var operatorLogs struct {
	sync.Mutex
	ctx        context.Context
	stop       context.CancelFunc
	namespaces map[string]*podLogs
	// all are every namespace's logs ever followed, whose followers the end waits for.
	all     []*podLogs
	running sync.WaitGroup
}

// startOperatorLogs makes followOperatorLogs possible until the returned function is called.
func startOperatorLogs() func() {
	operatorLogs.Lock()
	defer operatorLogs.Unlock()
	operatorLogs.ctx, operatorLogs.stop = context.WithCancel(context.Background())
	operatorLogs.namespaces = map[string]*podLogs{}
	return func() {
		operatorLogs.stop()
		operatorLogs.running.Wait()
		for _, logs := range operatorLogs.all {
			logs.following.Wait()
		}
	}
}

// followOperatorLogs starts following the manager pods of namespace, unless it already is.
func followOperatorLogs(namespace string) {
	operatorLogs.Lock()
	defer operatorLogs.Unlock()
	if operatorLogs.namespaces == nil || operatorLogs.namespaces[namespace] != nil {
		return
	}
	logs := newPodLogs(namespace)
	operatorLogs.namespaces[namespace] = logs
	operatorLogs.all = append(operatorLogs.all, logs)
	ctx := operatorLogs.ctx
	operatorLogs.running.Go(func() {
		ticker := time.NewTicker(operatorLogPollInterval)
		defer ticker.Stop()
		for ctx.Err() == nil {
			logs.lookAtPods(ctx)
			var current corev1.Namespace
			if err := k8sClient.Get(ctx, client.ObjectKey{Name: namespace}, &current); apierrors.IsNotFound(err) {
				// A namespace made again later is another journey's: it is followed anew.
				operatorLogs.Lock()
				delete(operatorLogs.namespaces, namespace)
				operatorLogs.Unlock()
				return
			}
			select {
			case <-ctx.Done():
			case <-ticker.C:
			}
		}
	})
}

// followedOperatorLogs is what followOperatorLogs has recorded of namespace, or nil.
func followedOperatorLogs(namespace string) *podLogs {
	operatorLogs.Lock()
	defer operatorLogs.Unlock()
	return operatorLogs.namespaces[namespace]
}
