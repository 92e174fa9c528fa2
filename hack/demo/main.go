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

// Command demo shows the operator at work on this machine, with no cluster: it starts a
// kube-apiserver and etcd on 127.0.0.1 (the ones the tests use), installs the Foo CRD,
// runs the manager binary against them and plays the operator's story with kubectl.
// With --dev-cluster it leaves the control plane and the manager running in the
// background instead, for use with kubectl; --dev-cluster-down stops them.
//
// Run it through `make demo`, `make dev-cluster` and `make dev-cluster-down`, which build
// the binaries it needs first.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
)

func main() {
	var (
		opts                                 clusterOptions
		scratch                              string
		devCluster, devClusterDown, serveDev bool
	)
	flag.StringVar(&opts.assets, "assets", os.Getenv("KUBEBUILDER_ASSETS"), "Folder holding the kube-apiserver and etcd binaries.")
	flag.StringVar(&opts.managerPath, "manager", "bin/manager", "The manager binary to run.")
	flag.StringVar(&opts.kubectlPath, "kubectl", "kubectl", "The kubectl binary to run.")
	flag.StringVar(&opts.registryPath, "registry", "", "distribution's registry binary: the dev cluster runs an image registry beside it.")
	flag.StringVar(&scratch, "dir", ".demo", "Scratch folder for the control plane's data, kubeconfigs and logs.")
	flag.BoolVar(&devCluster, "dev-cluster", false, "Leave the control plane and the manager running in the background.")
	flag.BoolVar(&devClusterDown, "dev-cluster-down", false, "Stop what --dev-cluster started.")
	flag.BoolVar(&serveDev, "serve-dev-cluster", false, "Run the dev cluster in the foreground (used by --dev-cluster).")
	flag.Parse()

	// The control plane library logs through controller-runtime; the demo reports by itself.
	logf.SetLogger(logr.Discard())

	scratch, err := filepath.Abs(scratch)
	if err == nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		switch {
		case devClusterDown:
			err = stopDevCluster(filepath.Join(scratch, "dev-cluster"))
		case devCluster:
			opts.dir = filepath.Join(scratch, "dev-cluster")
			err = startDevCluster(ctx, opts)
		case serveDev:
			opts.dir = filepath.Join(scratch, "dev-cluster")
			err = serveDevCluster(ctx, opts)
		default:
			opts.dir = filepath.Join(scratch, "demo")
			err = runDemo(ctx, opts)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		os.Exit(1)
	}
}

// runDemo plays the story on a fresh local cluster and stops everything afterwards, also
// when the story fails or is interrupted.
func runDemo(ctx context.Context, opts clusterOptions) error {
	began := time.Now()
	// A previous run that was killed outright may have left its data behind.
	if err := os.RemoveAll(opts.dir); err != nil {
		return err
	}
	cluster, err := startCluster(ctx, opts, &progress{w: os.Stdout})
	if err != nil {
		return interrupted(ctx, err)
	}
	err = tellStory(ctx, cluster, os.Stdout)
	if err == nil {
		err = printFooMetrics(ctx, cluster, os.Stdout)
	}
	fmt.Println()
	cluster.stop(os.Stdout)
	if err != nil {
		return interrupted(ctx, err)
	}
	fmt.Printf("\nThe story took %.1fs; nothing is left running. The manager's log is %s.\n",
		time.Since(began).Seconds(), relative(filepath.Join(opts.dir, "manager.log")))
	fmt.Println("To try kubectl yourself: make dev-cluster")
	return nil
}

func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errors.New("interrupted; everything the demo started has been stopped")
	}
	return err
}

// relative shortens path to one relative to the working folder, where the user ran make.
func relative(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// progress prints one line per phase of a long task, with how long the phase took.
type progress struct {
	w io.Writer
}

// phase runs do as the phase called name. do may return a detail to show on the line.
func (p *progress) phase(name string, do func() (string, error)) error {
	_, _ = fmt.Fprintf(p.w, "==> %s ... ", name)
	began := time.Now()
	detail, err := do()
	elapsed := fmt.Sprintf("%.1fs", time.Since(began).Seconds())
	if err != nil {
		_, _ = fmt.Fprintf(p.w, "failed after %s\n", elapsed)
		return err
	}
	if detail != "" {
		detail = " (" + detail + ")"
	}
	_, _ = fmt.Fprintf(p.w, "done in %s%s\n", elapsed, detail)
	return nil
}
