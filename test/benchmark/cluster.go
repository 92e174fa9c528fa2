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
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/hack/localcluster"
	"github.com/example/foo-operator/test/benchmark/fooapi"
	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/testcluster"
)

// cluster holds one scenario's pods, and the Foos of every implementation: envtest's
// kube-apiserver and etcd, or, with --in-cluster, the cluster under test (test/testcluster),
// whose node runs ours as a pod.
type cluster struct {
	config *rest.Config
	// kubeconfig is an administrator's, for the implementations that run as processes.
	kubeconfig string
	clientset  kubernetes.Interface
	// cgroups reads the node's containers' accounting, with --in-cluster.
	cgroups testcluster.NodeCgroupReader
	// operatorImage is the manager image in the cluster's registry, with --in-cluster.
	operatorImage string
	// client reads and writes pods (and ours' Foos).
	client   client.WithWatch
	workload workload
	// stopCluster stops what startCluster started.
	stopCluster func() error
}

// workload names the scenario's objects. Pod j lives in namespace j mod the number of
// namespaces. Each implementation k has its own kind of Foo and its own friends: its Foo i
// names pod k*friends+i, in that pod's namespace, for i < friends, and a pod that never
// exists otherwise. Each friend pod is thus named by exactly one Foo, each of its events
// flips one Foo, and every implementation sees the same pods.
type workload struct {
	pods, foos, friends, namespaces int
}

func (w workload) namespace(j int) string { return fmt.Sprintf("bench-%02d", j%w.namespaces) }
func (w workload) podName(j int) string   { return fmt.Sprintf("pod-%05d", j) }
func (w workload) friendPod(k, i int) int { return k*w.friends + i }
func (w workload) foo(k, i int) types.NamespacedName {
	namespace := w.namespace(i)
	if i < w.friends {
		namespace = w.namespace(w.friendPod(k, i))
	}
	return types.NamespacedName{Namespace: namespace, Name: fmt.Sprintf("foo-%05d", i)}
}
func (w workload) friendOf(k, i int) string {
	if i < w.friends {
		return w.podName(w.friendPod(k, i))
	}
	return fmt.Sprintf("nobody-%05d", i)
}

// creators is how many create, delete and patch requests the benchmark has in flight while
// it sets a scenario up: enough to keep the apiserver busy on two cores.
const creators = 16

func startCluster(ctx context.Context, opts options, w workload, impls []*implementation, dir string) (*cluster, error) {
	base, err := fooapi.LoadCRD(filepath.Join(opts.crdDir, tutorialv1.GroupVersion.Group+"_foos.yaml"))
	if err != nil {
		return nil, err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, impl := range impls {
		crds = append(crds, fooapi.CRD(base, impl.group))
	}
	c := &cluster{workload: w}
	if opts.inCluster {
		err = c.startUnderTest(ctx, opts, crds, dir)
	} else {
		err = c.startControlPlane(crds, dir)
	}
	if err != nil {
		return nil, err
	}
	// The apiserver's priority and fairness is the only limit, as for the controllers.
	c.config = rest.CopyConfig(c.config)
	c.config.QPS, c.config.Burst = -1, 0
	if c.client, err = newClient(c.config, tutorialv1.GroupVersion.Group); err != nil {
		return nil, errors.Join(err, c.stop())
	}
	for _, impl := range impls {
		if impl.foos, err = newClient(c.config, impl.group); err != nil {
			return nil, errors.Join(err, c.stop())
		}
	}
	return c, nil
}

// startControlPlane starts envtest's kube-apiserver and etcd with the scenario's CRDs.
func (c *cluster) startControlPlane(crds []*apiextensionsv1.CustomResourceDefinition, dir string) error {
	controlPlane, err := harness.StartControlPlane(crds...)
	if err != nil {
		return fmt.Errorf("%w (run through `make bench`)", err)
	}
	c.config, c.clientset, c.stopCluster = controlPlane.Config, controlPlane.Clientset, controlPlane.Stop
	c.kubeconfig = filepath.Join(dir, "admin.kubeconfig")
	if err := controlPlane.WriteAdminKubeconfig(c.kubeconfig); err != nil {
		return errors.Join(err, c.stop())
	}
	return nil
}

// startUnderTest starts the cluster under test as the suites get it (testcluster.FromEnv),
// installs the scenario's CRDs and pushes ours' image to its registry. It must let the
// benchmark read the accounting of ours' container on its node.
func (c *cluster) startUnderTest(ctx context.Context, opts options, crds []*apiextensionsv1.CustomResourceDefinition, dir string) error {
	provider, err := testcluster.FromEnv(localcluster.Options{
		Dir: filepath.Join(dir, "cluster"), KeepLogs: true, Assets: localcluster.AssetsFromEnv(), Node: true, Registry: true,
	}, dir)
	if err != nil {
		return err
	}
	if !slices.Contains(provider.Capabilities(), testcluster.NodeCgroups) {
		return fmt.Errorf("--in-cluster reads ours' CPU and memory from its container's cgroup, and %s offers no way to %s",
			provider.Description(), "read its node's container cgroups on this machine")
	}
	underTest, err := provider.Start(ctx)
	if err != nil {
		return fmt.Errorf("starting %s (run through `make bench-in-cluster`): %w", provider.Description(), err)
	}
	c.config, c.kubeconfig, c.stopCluster = underTest.RESTConfig(), underTest.KubeconfigPath(), underTest.Stop
	if c.cgroups, err = testcluster.As[testcluster.NodeCgroupReader](underTest, testcluster.NodeCgroups); err != nil {
		return errors.Join(err, c.stop())
	}
	if c.clientset, err = kubernetes.NewForConfig(c.config); err != nil {
		return errors.Join(err, c.stop())
	}
	if _, err := envtest.InstallCRDs(c.config, envtest.CRDInstallOptions{CRDs: crds}); err != nil {
		return errors.Join(fmt.Errorf("installing the scenario's CRDs: %w", err), c.stop())
	}
	images, err := underTest.ImageRegistry().PushLayout(ctx, opts.managerImages)
	if err != nil {
		return errors.Join(err, c.stop())
	}
	if c.operatorImage = images["foo-operator:bench"]; c.operatorImage == "" {
		return errors.Join(fmt.Errorf("%s holds no image foo-operator:bench", opts.managerImages), c.stop())
	}
	return nil
}

// newClient returns a client for pods and for the Foos of group.
func newClient(config *rest.Config, group string) (client.WithWatch, error) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(fooapi.AddToScheme(scheme, group))
	return client.NewWithWatch(config, client.Options{Scheme: scheme})
}

func (c *cluster) stop() error { return c.stopCluster() }

// populate creates the namespaces, the pods, and every implementation's Foos.
func (c *cluster) populate(ctx context.Context, impls []*implementation) error {
	w := c.workload
	for i := 0; i < w.namespaces; i++ {
		if err := c.createNamespace(ctx, w.namespace(i)); err != nil {
			return err
		}
	}
	if err := parallel(ctx, w.pods, func(j int) error { return c.client.Create(ctx, c.pod(w.namespace(j), w.podName(j), j)) }); err != nil {
		return fmt.Errorf("creating pods: %w", err)
	}
	for _, impl := range impls {
		err := parallel(ctx, w.foos, func(i int) error {
			return createFoo(ctx, impl.foos, w.foo(impl.index, i), w.friendOf(impl.index, i))
		})
		if err != nil {
			return fmt.Errorf("creating the Foos of %s: %w", impl.name, err)
		}
		for i := 0; i < w.foos; i++ {
			impl.expected[w.foo(impl.index, i)] = i < w.friends
		}
	}
	return nil
}

func (c *cluster) createNamespace(ctx context.Context, name string) error {
	return c.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
}

func createFoo(ctx context.Context, foos client.Client, key types.NamespacedName, friend string) error {
	foo := &tutorialv1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
		Spec:       tutorialv1.FooSpec{Name: friend},
	}
	return foos.Create(ctx, foo)
}

// pod returns a pod as a workload controller would create it: a few labels and an
// annotation, one container with resources, ports and environment; i varies the values.
// Nothing runs it.
func (c *cluster) pod(namespace, name string, i int) *corev1.Pod {
	env := make([]corev1.EnvVar, 0, 8)
	for j := 0; j < cap(env); j++ {
		env = append(env, corev1.EnvVar{Name: fmt.Sprintf("SETTING_%d", j), Value: fmt.Sprintf("value-%d-for-pod-%d", j, i)})
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace,
			Name:      name,
			Labels: map[string]string{
				"app.kubernetes.io/name":      "bench",
				"app.kubernetes.io/component": "backend",
				"app.kubernetes.io/part-of":   "foo-benchmark",
				"pod-template-hash":           fmt.Sprintf("%08x", i*2654435761%(1<<32)),
			},
			Annotations: map[string]string{"example.com/revision": fmt.Sprintf("rev-%d", i%7)},
		},
		Spec: corev1.PodSpec{
			// No scheduler binds these pods: on a cluster with a node (--in-cluster) they
			// stay Pending, as on a bare control plane, instead of being refused by the node.
			SchedulerName: "bench-no-scheduler",
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

// resetStatuses gives every Foo of impl only status.happy, the opposite of what its friend's
// existence calls for, before the implementation starts: each one then starts from the
// same state whatever ran before, and its startup must correct every Foo.
func (c *cluster) resetStatuses(ctx context.Context, impl *implementation) error {
	keys := slices.Collect(maps.Keys(impl.expected))
	return parallel(ctx, len(keys), func(i int) error {
		foo := &tutorialv1.Foo{}
		if err := impl.foos.Get(ctx, keys[i], foo); err != nil {
			return err
		}
		foo.Status = tutorialv1.FooStatus{Happy: !impl.expected[keys[i]]}
		return impl.foos.Status().Update(ctx, foo)
	})
}

// statusesCorrect reports whether every Foo of impl shows happy exactly when its friend
// exists, and says about how many it does not.
func (c *cluster) statusesCorrect(ctx context.Context, impl *implementation) (bool, string, error) {
	var foos tutorialv1.FooList
	if err := impl.foos.List(ctx, &foos); err != nil {
		return false, "", err
	}
	wrong := 0
	for _, foo := range foos.Items {
		happy, known := impl.expected[types.NamespacedName{Namespace: foo.Namespace, Name: foo.Name}]
		if !known || foo.Status.Happy != happy {
			wrong++
		}
	}
	if wrong > 0 || len(foos.Items) != len(impl.expected) {
		return false, fmt.Sprintf("%d of %d Foos wrong (%d expected)", wrong, len(foos.Items), len(impl.expected)), nil
	}
	return true, "", nil
}

// timePodList lists every pod's metadata in pages of 500, as an informer's first list does,
// the way a bare client would: no cache, no decoding into full objects. It returns the
// fastest of three lists: the time below which no controller can know every pod.
func (c *cluster) timePodList(ctx context.Context) (time.Duration, error) {
	lister, err := metadata.NewForConfig(c.config)
	if err != nil {
		return 0, err
	}
	pods := lister.Resource(corev1.SchemeGroupVersion.WithResource("pods"))
	fastest := time.Duration(0)
	for range 3 {
		start, listed, continueToken := time.Now(), 0, ""
		for {
			page, err := pods.List(ctx, metav1.ListOptions{Limit: 500, Continue: continueToken})
			if err != nil {
				return 0, fmt.Errorf("listing pods: %w", err)
			}
			listed += len(page.Items)
			if continueToken = page.Continue; continueToken == "" {
				break
			}
		}
		took := time.Since(start)
		if listed < c.workload.pods {
			return 0, fmt.Errorf("listed %d pods, expected at least %d", listed, c.workload.pods)
		}
		if fastest == 0 || took < fastest {
			fastest = took
		}
	}
	return fastest, nil
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
