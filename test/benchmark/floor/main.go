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

// Command floor is the benchmark's lower bound, kept only as a reference and never shipped:
// no controller, no cache, no queue. At start it corrects every Foo from one list of the
// pods; then it watches pods and, on each pod created or deleted, patches the status of the
// Foos that name it at once, with the patch the manager sends, computed by the manager's own
// functions (the whole status, its Happy condition included, on the resourceVersion it last
// wrote). Its latency is what this apiserver needs for one watch delivery plus one status
// write.
//
// The Foos do not change during a benchmark but for the floor's own writes, so it reads
// them once at start and keeps each one's resourceVersion from its writes' answers.
package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"sync/atomic"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/internal/controller"
	"github.com/example/foo-operator/internal/status"
	"github.com/example/foo-operator/test/benchmark/fooapi"
)

func main() {
	flags := fooapi.ParseFlags("write")
	log := ctrl.Log.WithName("floor")

	if err := run(ctrl.SetupSignalHandler(), flags); err != nil {
		log.Error(err, "Floor stopped with an error")
		os.Exit(1)
	}
}

func run(ctx context.Context, flags fooapi.Flags) error {
	cfg := ctrl.GetConfigOrDie()
	scheme := runtime.NewScheme()
	utilruntime.Must(fooapi.AddToScheme(scheme, flags.Group))
	foos, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	pods, err := metadata.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var ready atomic.Bool
	if err := serveEndpoints(ctx, cfg, flags, &ready); err != nil {
		return err
	}

	var list tutorialv1.FooList
	if err := foos.List(ctx, &list); err != nil {
		return fmt.Errorf("listing Foos: %w", err)
	}
	f := &floor{
		log:         ctrl.Log.WithName("floor"),
		foos:        foos,
		pods:        pods.Resource(corev1.SchemeGroupVersion.WithResource("pods")),
		all:         list.Items,
		naming:      map[types.NamespacedName][]*tutorialv1.Foo{},
		terminating: map[types.NamespacedName]bool{},
	}
	for i := range f.all {
		foo := &f.all[i]
		pod := types.NamespacedName{Namespace: foo.Namespace, Name: foo.Spec.Name}
		f.naming[pod] = append(f.naming[pod], foo)
	}
	return f.run(ctx, &ready)
}

// serveEndpoints serves the same client-go request metrics as the controllers do, pprof, and
// a readiness probe that passes once ready is set; each on its address, unless that is "0".
func serveEndpoints(ctx context.Context, cfg *rest.Config, flags fooapi.Flags, ready *atomic.Bool) error {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	metrics, err := metricsserver.NewServer(metricsserver.Options{BindAddress: flags.MetricsAddr}, cfg, httpClient)
	if err != nil {
		return err
	}
	if metrics != nil {
		go func() { _ = metrics.Start(ctx) }()
	}
	if flags.PprofAddr != "0" {
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		if err := serve(ctx, flags.PprofAddr, mux); err != nil {
			return err
		}
	}
	if flags.ProbeAddr != "0" {
		mux := http.NewServeMux()
		mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
			if !ready.Load() {
				http.Error(w, "not watching yet", http.StatusServiceUnavailable)
			}
		})
		if err := serve(ctx, flags.ProbeAddr, mux); err != nil {
			return err
		}
	}
	return nil
}

// floor holds the Foos, read once, and what it knows of the pods between events.
type floor struct {
	log  logr.Logger
	foos client.Client
	pods metadata.ResourceInterface
	all  []tutorialv1.Foo
	// naming lists the Foos that name each pod.
	naming map[types.NamespacedName][]*tutorialv1.Foo
	// terminating holds the pods already reported as marked for deletion, so that their
	// going writes nothing more: the Foo was unhappy from the first.
	terminating map[types.NamespacedName]bool
}

// run corrects every Foo from a list of the pods, then follows the pods' watch from that
// list. When the watch's resourceVersion has expired (410 Gone, as after a compaction), it
// lists again, as an informer does; any other end of the watch resumes it where it was.
func (f *floor) run(ctx context.Context, ready *atomic.Bool) error {
	var resourceVersion string
	for ctx.Err() == nil {
		if resourceVersion == "" {
			var err error
			if resourceVersion, err = f.correctAll(ctx); err != nil {
				return err
			}
		}
		watcher, err := f.pods.Watch(ctx, metav1.ListOptions{ResourceVersion: resourceVersion})
		if err != nil {
			return fmt.Errorf("watching pods: %w", err)
		}
		ready.Store(true)
		resourceVersion = f.follow(ctx, watcher, resourceVersion)
		watcher.Stop()
	}
	return nil
}

// correctAll writes the status of every Foo whose happiness is wrong, from one paginated
// metadata-only list of the pods (pages of 500, as informers list), and returns that list's
// resourceVersion.
func (f *floor) correctAll(ctx context.Context) (string, error) {
	existing := map[types.NamespacedName]types.UID{}
	var resourceVersion, continueToken string
	for {
		page, err := f.pods.List(ctx, metav1.ListOptions{Limit: 500, Continue: continueToken})
		if err != nil {
			return "", fmt.Errorf("listing pods: %w", err)
		}
		if resourceVersion == "" {
			resourceVersion = page.ResourceVersion
		}
		for _, pod := range page.Items {
			if pod.DeletionTimestamp == nil {
				existing[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}] = pod.UID
			}
		}
		if continueToken = page.Continue; continueToken == "" {
			break
		}
	}
	clear(f.terminating)
	// The benchmark times the startup until here, as until the manager's caches synced.
	f.log.Info(fooapi.LogFloorListed, "pods", len(existing), "foos", len(f.all))
	for i := range f.all {
		foo := &f.all[i]
		uid, exists := existing[types.NamespacedName{Namespace: foo.Namespace, Name: foo.Spec.Name}]
		if foo.Status.Happy == exists {
			continue
		}
		var friend *metav1.PartialObjectMetadata
		if exists {
			friend = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: foo.Namespace, Name: foo.Spec.Name, UID: uid}}
		}
		if err := patchStatus(ctx, f.foos, foo, friend); err != nil {
			return "", fmt.Errorf("correcting the status of Foo %s/%s: %w", foo.Namespace, foo.Name, err)
		}
	}
	return resourceVersion, nil
}

// follow writes the Foos that name each pod created or deleted, until the watch ends, and
// returns the resourceVersion to resume from: the last event's, or "" when it has expired.
func (f *floor) follow(ctx context.Context, watcher watch.Interface, resourceVersion string) string {
	for event := range watcher.ResultChan() {
		if event.Type == watch.Error {
			err := apierrors.FromObject(event.Object)
			if apierrors.IsGone(err) || apierrors.IsResourceExpired(err) {
				f.log.Info("Pod watch expired; listing again", "resourceVersion", resourceVersion, "reason", err.Error())
				return ""
			}
			f.log.Error(err, "Pod watch failed; watching again", "resourceVersion", resourceVersion)
			return resourceVersion
		}
		pod, ok := event.Object.(*metav1.PartialObjectMetadata)
		if !ok {
			continue
		}
		resourceVersion = pod.ResourceVersion
		key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
		// The friend as the manager would see it: the pod, marked for deletion or not, or
		// nil once it is gone.
		friend := pod
		switch {
		case event.Type == watch.Added:
		case event.Type == watch.Deleted && f.terminating[key]:
			delete(f.terminating, key)
			continue
		case event.Type == watch.Deleted:
			friend = nil
		case event.Type == watch.Modified && pod.DeletionTimestamp != nil && !f.terminating[key]:
			f.terminating[key] = true
		default:
			continue
		}
		if len(f.naming[key]) == 0 {
			continue
		}
		// At V(2), the same moments as the manager logs, for the benchmark's breakdown.
		f.log.V(2).Info(controller.LogPodEvent, "pod", klog.KObj(pod), "foos", len(f.naming[key]))
		for _, foo := range f.naming[key] {
			if err := patchStatus(ctx, f.foos, foo, friend); err != nil {
				f.log.Error(err, "Failed to patch the status", "foo", klog.KObj(foo))
				continue
			}
			f.log.V(2).Info(controller.LogUpdatedStatus, "foo", klog.KObj(foo), "happy", foo.Status.Happy)
		}
	}
	return resourceVersion
}

// serve listens on address and serves handler until ctx ends.
func serve(ctx context.Context, address string, handler http.Handler) error {
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return err
	}
	server := &http.Server{Handler: handler}
	go func() { _ = server.Serve(listener) }()
	go func() {
		<-ctx.Done()
		_ = server.Close()
	}()
	return nil
}

// patchStatus writes the status the manager would write given the friend pod (nil if there
// is none), in the manager's JSON merge patch, on the resourceVersion of the floor's last
// write. On success foo holds the apiserver's answer, and so the next write's
// resourceVersion and the previous status.
func patchStatus(ctx context.Context, foos client.Client, foo *tutorialv1.Foo, friend *metav1.PartialObjectMetadata) error {
	desired := status.Desired(foo, friend, metav1.Now().Rfc3339Copy())
	patch, err := status.MergePatch(foo.ResourceVersion, foo.Status, desired)
	if err != nil {
		return err
	}
	return foos.Status().Patch(ctx, foo, client.RawPatch(types.MergePatchType, patch))
}
