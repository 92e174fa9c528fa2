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
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/example/foo-operator/test/localcluster"
)

// localCluster is a kube-apiserver and etcd on 127.0.0.1 with the Foo CRD installed, and
// the operator's manager binary running against them. Everything it writes lives in dir.
type localCluster struct {
	dir        string
	kubeconfig string
	config     *rest.Config
	metricsURL string
	kubectl    kubectl

	env      *envtest.Environment
	registry *localcluster.Registry
	manager  *exec.Cmd
	// managerExited is closed once the manager process has been reaped.
	managerExited chan struct{}
}

// clusterOptions says which binaries the cluster runs and where it keeps its files.
type clusterOptions struct {
	dir          string // scratch folder, created and later removed
	assets       string // folder holding kube-apiserver and etcd
	managerPath  string
	kubectlPath  string
	managerFlags []string
	// registryPath is distribution's registry binary; empty runs no registry.
	registryPath string
}

// registryDir keeps the registry's images and CA beside the cluster's scratch folder, so
// that they outlive a restart of the dev cluster and clients keep trusting it.
func registryDir(dir string) string { return filepath.Join(filepath.Dir(dir), "registry") }

// startCluster brings up the control plane, installs the CRD and starts the manager, one
// phase per progress line. On error, whatever it started is already stopped again.
func startCluster(ctx context.Context, opts clusterOptions, out *progress) (_ *localCluster, err error) {
	etcdDir, certDir := filepath.Join(opts.dir, "etcd"), filepath.Join(opts.dir, "pki")
	for _, dir := range []string{etcdDir, certDir} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	c := &localCluster{dir: opts.dir, kubeconfig: filepath.Join(opts.dir, "kubeconfig")}
	defer func() {
		if err != nil {
			c.stop(io.Discard)
		}
	}()

	if opts.registryPath != "" {
		err = out.phase("Starting the image registry", func() (string, error) {
			var err error
			c.registry, err = localcluster.StartRegistry(ctx, localcluster.RegistryOptions{Binary: opts.registryPath, Dir: registryDir(opts.dir)})
			if err != nil {
				return "", err
			}
			return "at https://" + c.registry.Host + ", images in " + relative(registryDir(opts.dir)), nil
		})
		if err != nil {
			return nil, err
		}
	}

	err = out.phase("Starting kube-apiserver and etcd", func() (string, error) {
		// Explicit folders keep etcd's data and the apiserver's certificates in the
		// scratch folder, where stop removes them, rather than in the system's temp folder.
		c.env = &envtest.Environment{
			BinaryAssetsDirectory: opts.assets,
			ControlPlane: envtest.ControlPlane{
				Etcd:      &envtest.Etcd{DataDir: etcdDir},
				APIServer: &envtest.APIServer{CertDir: certDir},
			},
		}
		if _, err := c.env.Start(); err != nil {
			return "", fmt.Errorf("starting the control plane from %s (run `make envtest` to build it): %w", opts.assets, err)
		}
		admin, err := c.env.AddUser(envtest.User{Name: "demo-admin", Groups: []string{"system:masters"}}, nil)
		if err != nil {
			return "", fmt.Errorf("provisioning a user: %w", err)
		}
		c.config = admin.Config()
		kubeconfig, err := admin.KubeConfig()
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(c.kubeconfig, kubeconfig, 0o600); err != nil {
			return "", err
		}
		c.kubectl = kubectl{path: opts.kubectlPath, kubeconfig: c.kubeconfig, cacheDir: filepath.Join(opts.dir, "kube-cache")}
		return "at " + c.config.Host, nil
	})
	if err != nil {
		return nil, err
	}

	err = out.phase("Installing the Foo CRD", func() (string, error) {
		if _, err := c.kubectl.run(ctx, "apply", "-k", "config/crd"); err != nil {
			return "", err
		}
		_, err := c.kubectl.run(ctx, "wait", "--for=condition=Established", "--timeout=30s", "crd/foos.tutorial.my.domain")
		return "", err
	})
	if err != nil {
		return nil, err
	}

	err = out.phase("Starting the manager", func() (string, error) {
		return c.startManager(ctx, opts)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// startManager runs the manager binary with its metrics and probes on free local ports,
// and returns once it reports ready: its caches have synced, so it sees every Foo and pod.
func (c *localCluster) startManager(ctx context.Context, opts clusterOptions) (string, error) {
	metricsPort, err := freePort()
	if err != nil {
		return "", err
	}
	probePort, err := freePort()
	if err != nil {
		return "", err
	}
	logPath := filepath.Join(c.dir, "manager.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return "", err
	}
	defer func() { _ = logFile.Close() }()

	args := append([]string{
		// Plain HTTP on the loopback interface, so that `curl` can read the metrics
		// without a token; a cluster deployment serves them over HTTPS with authorization.
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metricsPort),
		"--metrics-secure=false",
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probePort),
	}, opts.managerFlags...)
	c.manager = exec.Command(opts.managerPath, args...)
	c.manager.Env = append(os.Environ(), "KUBECONFIG="+c.kubeconfig)
	c.manager.Stdout, c.manager.Stderr = logFile, logFile
	// Its own process group keeps a Ctrl-C in the terminal from reaching the manager
	// directly: the demo stops it in order, before the control plane it talks to.
	c.manager.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.manager.Start(); err != nil {
		return "", fmt.Errorf("starting %s (run `make build` to build it): %w", opts.managerPath, err)
	}
	c.managerExited = make(chan struct{})
	go func() {
		_ = c.manager.Wait()
		close(c.managerExited)
	}()
	c.metricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort)

	readyURL := fmt.Sprintf("http://127.0.0.1:%d/readyz", probePort)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	for !httpOK(ctx, readyURL) {
		select {
		case <-c.managerExited:
			return "", fmt.Errorf("the manager exited before it became ready; see its log in %s", logPath)
		case <-ctx.Done():
			return "", fmt.Errorf("the manager did not become ready: %w; see its log in %s", ctx.Err(), logPath)
		case <-ticker.C:
		}
	}
	return fmt.Sprintf("%s, log in %s", relative(opts.managerPath), relative(logPath)), nil
}

// stop ends the manager, then the control plane, and removes the scratch folder apart
// from the manager's log. It is safe to call on a partly started cluster.
func (c *localCluster) stop(w io.Writer) {
	out := &progress{w: w}
	if c.manager != nil && c.manager.Process != nil {
		_ = out.phase("Stopping the manager", func() (string, error) {
			_ = c.manager.Process.Signal(syscall.SIGTERM)
			select {
			case <-c.managerExited:
			case <-time.After(30 * time.Second):
				_ = c.manager.Process.Kill()
				<-c.managerExited
			}
			return "", nil
		})
	}
	if c.env != nil {
		_ = out.phase("Stopping kube-apiserver and etcd", func() (string, error) {
			return "", c.env.Stop()
		})
	}
	if c.registry != nil {
		_ = out.phase("Stopping the image registry", func() (string, error) {
			return "its images stay in " + relative(registryDir(c.dir)), c.registry.Stop()
		})
	}
	for _, path := range []string{"etcd", "pki", "kube-cache", "kubeconfig"} {
		_ = os.RemoveAll(filepath.Join(c.dir, path))
	}
}

// freePort asks the kernel for a port that is free on the loopback interface now.
func freePort() (int, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = listener.Close() }()
	return listener.Addr().(*net.TCPAddr).Port, nil
}

func httpOK(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// kubectl runs a kubectl binary against the local cluster.
type kubectl struct {
	path       string
	kubeconfig string
	// cacheDir keeps kubectl's discovery cache in the scratch folder instead of ~/.kube.
	cacheDir string
}

// run runs kubectl with args and returns its output; on failure the error includes it.
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
