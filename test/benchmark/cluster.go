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
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/test/localcluster"
)

// cluster is a local kube-apiserver and etcd holding one scenario's pods and Foos.
type cluster struct {
	*localcluster.Cluster
	client   client.WithWatch
	workload workload
}

// workload names the scenario's objects. Pod i and Foo i live in namespace i mod the number
// of namespaces; Foo i names pod i for i < friends and a pod that never exists otherwise,
// so each friend pod is named by exactly one Foo and each of its events flips one Foo.
type workload struct {
	pods, foos, friends, namespaces int
}

func (w workload) namespace(i int) string { return fmt.Sprintf("bench-%02d", i%w.namespaces) }
func (w workload) podName(i int) string   { return fmt.Sprintf("pod-%05d", i) }
func (w workload) foo(i int) types.NamespacedName {
	return types.NamespacedName{Namespace: w.namespace(i), Name: fmt.Sprintf("foo-%05d", i)}
}
func (w workload) friendOf(i int) string {
	if i < w.friends {
		return w.podName(i)
	}
	return fmt.Sprintf("nobody-%05d", i)
}

// creators is how many create, delete and patch requests the benchmark has in flight while
// it sets a scenario up: enough to keep the apiserver busy on two cores.
const creators = 16

func startCluster(ctx context.Context, opts options, w workload, dir string) (*cluster, error) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(tutorialv1.AddToScheme(scheme))

	local, err := localcluster.Start(ctx, localcluster.Options{
		Dir:      filepath.Join(dir, "cluster"),
		KeepLogs: true,
		Assets:   localcluster.AssetsFromEnv(),
		CRDPaths: []string{opts.crdDir},
	})
	if err != nil {
		return nil, fmt.Errorf("starting the control plane (run through `make bench`): %w", err)
	}
	c := &cluster{Cluster: local, workload: w}
	// The apiserver's priority and fairness is the only limit, as for the controllers
	// (the library's administrator configuration already has no client-side limit).
	if c.client, err = client.NewWithWatch(local.Config, client.Options{Scheme: scheme}); err != nil {
		return nil, errors.Join(err, local.Stop())
	}
	return c, nil
}

func (c *cluster) stop() error { return c.Stop() }

// populate creates the namespaces, pods and Foos.
func (c *cluster) populate(ctx context.Context) error {
	w := c.workload
	for i := 0; i < w.namespaces; i++ {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: w.namespace(i)}}
		if err := c.client.Create(ctx, ns); err != nil {
			return err
		}
	}
	if err := parallel(ctx, w.pods, func(i int) error { return c.client.Create(ctx, c.pod(i)) }); err != nil {
		return fmt.Errorf("creating pods: %w", err)
	}
	return parallel(ctx, w.foos, func(i int) error {
		key := w.foo(i)
		foo := &tutorialv1.Foo{
			ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
			Spec:       tutorialv1.FooSpec{Name: w.friendOf(i)},
		}
		if err := c.client.Create(ctx, foo); err != nil {
			return fmt.Errorf("creating Foos: %w", err)
		}
		return nil
	})
}

// pod returns pod i as a workload controller would create it: a few labels and an
// annotation, one container with resources, ports and environment. Nothing runs it.
func (c *cluster) pod(i int) *corev1.Pod {
	w := c.workload
	env := make([]corev1.EnvVar, 0, 8)
	for j := 0; j < cap(env); j++ {
		env = append(env, corev1.EnvVar{Name: fmt.Sprintf("SETTING_%d", j), Value: fmt.Sprintf("value-%d-for-pod-%d", j, i)})
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: w.namespace(i),
			Name:      w.podName(i),
			Labels: map[string]string{
				"app.kubernetes.io/name":      "bench",
				"app.kubernetes.io/component": "backend",
				"app.kubernetes.io/part-of":   "foo-benchmark",
				"pod-template-hash":           fmt.Sprintf("%08x", i*2654435761%(1<<32)),
			},
			Annotations: map[string]string{"example.com/revision": fmt.Sprintf("rev-%d", i%7)},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:  "app",
				Image: "registry.example.com/bench/app:1.2.3",
				Args:  []string{"--listen=:8080", "--log-level=info"},
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "metrics", ContainerPort: 9090}},
				Env:   env,
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
					Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
				},
				ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(8080)}}},
			}},
		},
	}
}

// resetStatuses gives every Foo the same starting status before each implementation runs:
// only status.happy, true exactly for the Foos whose friend pod exists. Each implementation
// then starts from the same state whatever the previous one wrote.
func (c *cluster) resetStatuses(ctx context.Context) error {
	w := c.workload
	return parallel(ctx, w.foos, func(i int) error {
		key := w.foo(i)
		foo := &tutorialv1.Foo{}
		if err := c.client.Get(ctx, key, foo); err != nil {
			return err
		}
		foo.Status = tutorialv1.FooStatus{Happy: i < w.friends}
		return c.client.Status().Update(ctx, foo)
	})
}

// statusesCorrect reports whether every Foo shows happy exactly when its friend exists.
func (c *cluster) statusesCorrect(ctx context.Context) (bool, error) {
	var foos tutorialv1.FooList
	if err := c.client.List(ctx, &foos); err != nil {
		return false, err
	}
	friends := map[types.NamespacedName]bool{}
	for i := 0; i < c.workload.friends; i++ {
		friends[c.workload.foo(i)] = true
	}
	for _, foo := range foos.Items {
		if foo.Status.Happy != friends[types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}] {
			return false, nil
		}
	}
	return len(foos.Items) == c.workload.foos, nil
}

// parallel calls do for 0..n-1 with up to creators calls at once, and returns the first error.
func parallel(ctx context.Context, n int, do func(i int) error) error {
	var (
		next     atomic.Int64
		firstErr error
		once     sync.Once
		wg       sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for worker := 0; worker < min(creators, n); worker++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := do(i); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return firstErr
}
