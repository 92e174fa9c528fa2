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
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/example/foo-operator/hack/localcluster"
	"github.com/example/foo-operator/hack/localcluster/olm"
	"github.com/example/foo-operator/hack/localcluster/process"
)

// The background cluster (`make cluster`) runs in a process of its own, started by
// --cluster, which waits for it to say that the cluster is up (or why not) on a status pipe,
// then leaves it running. --cluster-down stops it.

// readyLine tells the starting process that the cluster is up.
const readyLine = "--- ready ---"

// statusFD is the file descriptor of the status pipe in the background process.
const statusFD = 3

func clusterDir(opts options) string  { return filepath.Join(opts.dir, "cluster") }
func registryDir(opts options) string { return filepath.Join(opts.dir, "registry") }
func pidFile(opts options) string     { return filepath.Join(opts.dir, "cluster.pid") }
func envFile(opts options) string     { return filepath.Join(opts.dir, "cluster.env") }

func startBackgroundCluster(ctx context.Context, opts options) error {
	if pid, running := backgroundPID(opts); running {
		fmt.Printf("A cluster is already running (pid %d); `make cluster-down cluster` starts a new one.\n\n", pid)
		return printEnv(os.Stdout, opts)
	}
	if err := os.MkdirAll(opts.dir, 0o755); err != nil {
		return err
	}
	logPath := filepath.Join(opts.dir, "cluster.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer func() { _ = logFile.Close() }()
	statusReader, statusWriter, err := os.Pipe()
	if err != nil {
		return err
	}
	defer func() { _ = statusReader.Close() }()

	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "--serve-cluster", "--dir", opts.dir, "--kubectl", opts.kubectlPath, "--olm", opts.olm,
		"--registry-address", opts.registryAddress)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.ExtraFiles = []*os.File{statusWriter}
	// A session of its own: the terminal's Ctrl-C and hang-up do not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	closeInheritedFilesOnExec()
	if err := cmd.Start(); err != nil {
		_ = statusWriter.Close()
		return err
	}
	_ = statusWriter.Close()
	if err := os.WriteFile(pidFile(opts), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		return err
	}
	// Interrupted while starting: stop it; it cleans up after itself.
	stopOnInterrupt := context.AfterFunc(ctx, func() { _ = cmd.Process.Signal(syscall.SIGTERM) })
	defer stopOnInterrupt()

	ready := false
	status := bufio.NewScanner(statusReader)
	for status.Scan() {
		if status.Text() == readyLine {
			ready = true
			break
		}
		fmt.Println(status.Text())
	}
	if !ready {
		_ = cmd.Wait()
		if ctx.Err() != nil {
			return errors.New("interrupted; the cluster has been stopped")
		}
		return fmt.Errorf("the cluster did not start; see %s", relative(logPath))
	}
	fmt.Println()
	if err := printEnv(os.Stdout, opts); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// closeInheritedFilesOnExec keeps the files this process inherited (make's jobserver pipes,
// a caller's output pipe) from the background process, which would otherwise hold them
// open, and keep whoever waits for them waiting, as long as the cluster runs.
func closeInheritedFilesOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, entry := range entries {
		if fd, err := strconv.Atoi(entry.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// serveBackgroundCluster runs the cluster until it is told to stop.
func serveBackgroundCluster(ctx context.Context, opts options) error {
	status := os.NewFile(statusFD, "status")
	syscall.CloseOnExec(statusFD)
	defer func() { _ = os.Remove(pidFile(opts)) }()

	cluster, err := localcluster.Start(ctx, localcluster.Options{
		Dir: clusterDir(opts), KeepLogs: true, Assets: opts.assets, Progress: io.MultiWriter(os.Stdout, status),
		Node: true, Registry: true, RegistryDir: registryDir(opts), RegistryAddress: opts.registryAddress,
		OLMv0: opts.olm == "v0" || opts.olm == "both", OLMv1: opts.olm == "v1" || opts.olm == "both",
	})
	if err != nil {
		_, _ = fmt.Fprintf(status, "Error: %v\n", err)
		return err
	}
	if err := os.WriteFile(envFile(opts), []byte(clusterEnv(opts, cluster)), 0o644); err != nil {
		_ = cluster.Stop()
		return err
	}
	_, _ = fmt.Fprintln(status, readyLine)
	_ = status.Close()

	<-ctx.Done()
	fmt.Println("Stopping the cluster")
	_ = os.Remove(envFile(opts))
	return cluster.Stop()
}

// toolsDir holds links to the tools the docs' install pages run against the cluster (kubectl, and with
// OLM operator-sdk), which `make cluster` makes; the environment puts it first on PATH.
func toolsDir(opts options) string { return filepath.Join(opts.dir, "bin") }

// clusterEnv is what a shell sources to use the cluster: the variables, and comments saying
// what runs and which images the registry holds for OLM's tools.
func clusterEnv(opts options, cluster *localcluster.Cluster) string {
	env := fmt.Sprintf("export KUBECONFIG=%s\nexport SSL_CERT_FILE=%s\nexport REGISTRY=%s\nexport REGISTRY_CA=%s\nexport PATH=\"%s:$PATH\"\n",
		cluster.Kubeconfig, cluster.Registry.TrustBundle, cluster.Registry.Host, cluster.Registry.CAFile, toolsDir(opts))
	if opts.olm == "v0" || opts.olm == "both" {
		env += fmt.Sprintf("# OLM %s runs in namespace %s.\n", olm.V0Version, olm.V0Namespace)
	}
	if opts.olm == "v1" || opts.olm == "both" {
		env += fmt.Sprintf("# OLM v1 %s (catalogd, operator-controller) runs in namespace %s.\n", olm.V1Version, olm.V1Namespace)
	}
	if opts.olm != "" {
		env += fmt.Sprintf("# For operator-sdk: --index-image $REGISTRY/%s, --decompression-image, --untar-image\n", olm.EmptyIndexImage)
		env += "# and --storage-image $REGISTRY/busybox. The node pulls quay.io's and registry.access.redhat.com's\n"
		env += "# images from $REGISTRY, under the same repository and tag.\n"
	}
	return env
}

// printEnv prints what a shell needs to use the cluster and its registry.
func printEnv(w io.Writer, opts options) error {
	env, err := os.ReadFile(envFile(opts))
	if err != nil {
		return err
	}
	_, _ = fmt.Fprintf(w, "The cluster (a control plane and one node, in a network namespace of its own) and its image\n")
	_, _ = fmt.Fprintf(w, "registry run in the background. In your shell (or `source %s`):\n\n", relative(envFile(opts)))
	_, _ = fmt.Fprintf(w, "%s\n\n", indent(string(env)))
	_, _ = fmt.Fprintf(w, "KUBECONFIG reaches the apiserver on a loopback port forwarded into the cluster's namespace;\n")
	_, _ = fmt.Fprintf(w, "SSL_CERT_FILE adds the registry's CA (REGISTRY_CA) to the machine's, for the Go programs that push and pull;\n")
	_, _ = fmt.Fprintf(w, "PATH starts with %s, which has kubectl (and with OLM operator-sdk).\n", relative(toolsDir(opts)))
	_, _ = fmt.Fprintf(w, "Images pushed to $REGISTRY are what the node pulls. Then, for instance:\n\n")
	_, _ = fmt.Fprintf(w, "  make docker-build docker-push deploy IMG=$REGISTRY/foo-operator:dev CONTAINER_TOOL=imagebuilder\n")
	_, _ = fmt.Fprintf(w, "  kubectl apply -k config/samples\n")
	_, _ = fmt.Fprintf(w, "  kubectl run jack --image=$REGISTRY/pause\n")
	_, _ = fmt.Fprintf(w, "  kubectl get foos,pods -A\n\n")
	_, _ = fmt.Fprintf(w, "With OLM (make cluster OLM=v0, v1 or both), the commands of docs/install-olm-*.md run as they are written.\n")
	_, _ = fmt.Fprintf(w, "Every process logs into %s. Stop it all with: make cluster-down\n", relative(filepath.Join(clusterDir(opts), "logs")))
	return nil
}

func indent(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, line := range lines {
		lines[i] = "  " + line
	}
	return strings.Join(lines, "\n")
}

func stopBackgroundCluster(opts options) error {
	pid, running := backgroundPID(opts)
	if !running {
		fmt.Println("No cluster is running.")
		return nil
	}
	out := process.Progress{W: os.Stdout}
	return out.Phase(fmt.Sprintf("Stopping the cluster (pid %d)", pid), func() (string, error) {
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			return "", err
		}
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			if !process.Alive(pid) {
				return "its log: " + relative(filepath.Join(opts.dir, "cluster.log")), nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return "", fmt.Errorf("pid %d is still running after two minutes; see %s", pid, filepath.Join(opts.dir, "cluster.log"))
	})
}

// backgroundPID is the pid of the running background cluster, if there is one.
func backgroundPID(opts options) (int, bool) {
	content, err := os.ReadFile(pidFile(opts))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(content)))
	if err != nil || !process.Alive(pid) {
		return 0, false
	}
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err != nil ||
		!bytes.Contains(cmdline, []byte("--serve-cluster")) {
		return 0, false
	}
	return pid, true
}
