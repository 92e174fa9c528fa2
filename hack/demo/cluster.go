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
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/example/foo-operator/hack/localcluster"
	"github.com/example/foo-operator/hack/localcluster/managerprocess"
	"github.com/example/foo-operator/hack/localcluster/process"
)

// demoCluster is the cluster the story plays on, and how to reach it with kubectl.
type demoCluster struct {
	*localcluster.Cluster
	kubectl kubectl
	// manager is the manager process of a cluster without a node; on a node the operator
	// runs as a pod.
	manager *managerprocess.Manager
	// jackImage is the image pod jack runs.
	jackImage string
	// onNode tells whether the cluster has a real node.
	onNode bool
	out    process.Progress
}

// operatorImageTag is the tag of the manager image the demo builds and deploys on the node.
const operatorImageTag = "demo"

func startDemoCluster(ctx context.Context, opts options, onNode bool) (*demoCluster, error) {
	name := "demo"
	if onNode {
		name = "demo-node"
	}
	out := process.Progress{W: os.Stdout}
	clusterOpts := localcluster.Options{
		Dir: filepath.Join(opts.dir, name), KeepLogs: true, Assets: opts.assets, Progress: os.Stdout,
		Node: onNode, Registry: onNode,
	}
	if !onNode {
		// On a node, `make deploy` installs the CRD with the rest of config/default.
		clusterOpts.CRDPaths = []string{"config/crd/bases"}
	}
	cluster, err := localcluster.Start(ctx, clusterOpts)
	if err != nil {
		return nil, err
	}
	c := &demoCluster{
		Cluster: cluster, onNode: onNode, out: out,
		kubectl:   kubectl{path: opts.kubectlPath, kubeconfig: cluster.Kubeconfig, cacheDir: filepath.Join(cluster.Dir, "kube-cache")},
		jackImage: "registry.k8s.io/pause:3.10",
	}
	if onNode {
		c.jackImage = cluster.Image("pause")
		return c, nil
	}
	err = out.Phase("Starting the manager", func() (string, error) {
		c.manager, err = managerprocess.Start(managerprocess.Options{
			Name: "manager", LogDir: cluster.LogDir, Binary: opts.managerPath, Kubeconfig: cluster.Kubeconfig, PlainMetrics: true,
		})
		if err != nil {
			return "", err
		}
		return relative(opts.managerPath), c.manager.WaitReady(ctx, time.Minute)
	})
	if err != nil {
		return nil, errors.Join(err, c.stop())
	}
	return c, nil
}

// operatorImage is the manager image the demo deploys on the node.
func (c *demoCluster) operatorImage() string {
	return c.Registry.Host + "/foo-operator:" + operatorImageTag
}

// makeEnv is the environment of the make commands the story runs on the node: the cluster's
// kubeconfig, trust in its registry's CA for the push, and the demo's kubectl.
func (c *demoCluster) makeEnv() []string {
	return append(os.Environ(), "KUBECONFIG="+c.Kubeconfig, "SSL_CERT_FILE="+c.Registry.TrustBundle, "KUBECTL="+c.kubectl.path)
}

// runMake runs make with args in the project, as the user would.
func (c *demoCluster) runMake(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Env = c.makeEnv()
	output, err := cmd.CombinedOutput()
	if err != nil {
		return string(output), fmt.Errorf("make %v failed: %w\n%s", args, err, output)
	}
	return string(output), nil
}

func (c *demoCluster) stop() error {
	var errs []error
	if c.manager != nil {
		errs = append(errs, c.out.Phase("Stopping the manager", func() (string, error) {
			_, err := c.manager.Stop(30 * time.Second)
			return "", err
		}))
	}
	errs = append(errs, c.out.Phase("Stopping the local cluster", func() (string, error) {
		return "logs in " + relative(c.LogDir), c.Stop()
	}))
	return errors.Join(errs...)
}

// kubectl runs kubectl against the demo's cluster.
type kubectl struct {
	path       string
	kubeconfig string
	cacheDir   string
}

func (k kubectl) run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, k.path, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+k.kubeconfig, "KUBECACHEDIR="+k.cacheDir)
	output, err := cmd.CombinedOutput()
	if err != nil {
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			return string(output), fmt.Errorf("kubectl %v failed: %s", args, output)
		}
		return string(output), fmt.Errorf("kubectl %v: %w", args, err)
	}
	return string(output), nil
}
