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

// Command demo shows the operator at work on this machine, with no cluster of the user's.
// By default it starts a local control plane (kube-apiserver and etcd, the ones the tests
// use), installs the Foo CRD, runs the manager binary against it and plays the operator's
// story with kubectl. With --node it plays the story on a local cluster with a real node:
// the operator is built into an image, pushed to the cluster's registry and deployed as a
// pod, and pod jack really runs. With --cluster it leaves such a cluster running in the
// background instead, for kubectl and make; --cluster-down stops it.
//
// Run it through `make demo`, `make demo-node`, `make cluster` and `make cluster-down`,
// which build what it needs first and tell it where through the environment.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/example/foo-operator/hack/localcluster"
)

// options are the demo's settings.
type options struct {
	// dir is the scratch folder: one subfolder per cluster, and the registry's images.
	dir         string
	managerPath string
	kubectlPath string
	assets      localcluster.Assets
	// olm names the OLM generations --cluster installs: "", v0, v1 or both.
	olm string
	// registryAddress is where --cluster's registry serves; empty picks a free loopback port.
	registryAddress string
}

func main() {
	var (
		opts                                     options
		node, cluster, clusterDown, serveCluster bool
	)
	flag.StringVar(&opts.managerPath, "manager", "bin/manager", "The manager binary to run (without --node).")
	flag.StringVar(&opts.kubectlPath, "kubectl", "kubectl", "The kubectl binary to run.")
	flag.StringVar(&opts.dir, "dir", ".demo", "Scratch folder for the clusters' data, kubeconfigs and logs.")
	flag.BoolVar(&node, "node", false, "Play the story on a local cluster with a real node, the operator running as a pod.")
	flag.BoolVar(&cluster, "cluster", false, "Leave a local cluster with a real node and an image registry running in the background.")
	flag.BoolVar(&clusterDown, "cluster-down", false, "Stop what --cluster started.")
	flag.BoolVar(&serveCluster, "serve-cluster", false, "Run the cluster of --cluster in the foreground (used by --cluster).")
	flag.StringVar(&opts.olm, "olm", "", "With --cluster, install OLM on the cluster: v0, v1 or both.")
	flag.StringVar(&opts.registryAddress, "registry-address", "",
		"With --cluster, the loopback host:port its registry serves on (a free port if empty).")
	flag.Parse()
	opts.assets = localcluster.AssetsFromEnv()

	// controller-runtime's libraries log through it; the demo reports by itself.
	logf.SetLogger(logr.Discard())

	var err error
	if opts.olm != "" && opts.olm != "v0" && opts.olm != "v1" && opts.olm != "both" {
		err = fmt.Errorf("--olm takes v0, v1 or both, not %q", opts.olm)
	} else if opts.dir, err = filepath.Abs(opts.dir); err == nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		switch {
		case clusterDown:
			err = stopBackgroundCluster(opts)
		case cluster:
			err = startBackgroundCluster(ctx, opts)
		case serveCluster:
			err = serveBackgroundCluster(ctx, opts)
		default:
			err = runDemo(ctx, opts, node)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %v\n", err)
		os.Exit(1)
	}
}

// runDemo plays the story on a fresh local cluster and stops everything afterwards, also
// when the story fails or is interrupted.
func runDemo(ctx context.Context, opts options, node bool) error {
	began := time.Now()
	cluster, err := startDemoCluster(ctx, opts, node)
	if err != nil {
		return interrupted(ctx, err)
	}
	err = tellStory(ctx, cluster, os.Stdout)
	fmt.Println()
	stopErr := cluster.stop()
	if err != nil {
		return interrupted(ctx, fmt.Errorf("%w\nThe logs of every process are in %s", err, relative(cluster.LogDir)))
	}
	if stopErr != nil {
		return stopErr
	}
	fmt.Printf("\nThe demo took %.1fs; nothing is left running.\n", time.Since(began).Seconds())
	fmt.Println("To try kubectl yourself on a cluster with a real node: make cluster")
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
