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

	"github.com/example/foo-operator/test/localcluster"
)

// The dev cluster runs in a background process of its own. The process that starts it
// passes it the write end of a pipe: the background process reports its progress there,
// then readyLine, then closes it. A pipe that closes without readyLine means it failed.
const readyLine = "--- ready ---"

// statusFD is the descriptor of that pipe in the background process (after stdin,
// stdout and stderr).
const statusFD = 3

func pidFile(dir string) string { return filepath.Join(dir, "pid") }

// startDevCluster starts the dev cluster in the background and returns once it is ready.
func startDevCluster(ctx context.Context, opts clusterOptions) error {
	if pid, running := devClusterPID(opts.dir); running {
		fmt.Printf("A dev cluster is already running (pid %d); `make dev-cluster-down dev-cluster` restarts it with a new build.\n", pid)
		printDevClusterUsage(os.Stdout, opts, "", nil)
		return nil
	}
	if err := os.RemoveAll(opts.dir); err != nil {
		return err
	}
	if err := os.MkdirAll(opts.dir, 0o750); err != nil {
		return err
	}
	logPath := filepath.Join(opts.dir, "dev-cluster.log")
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
	cmd := exec.Command(self, "--serve-dev-cluster", "--dir", filepath.Dir(opts.dir),
		"--assets", opts.assets, "--manager", opts.managerPath, "--kubectl", opts.kubectlPath,
		"--registry", opts.registryPath)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.ExtraFiles = []*os.File{statusWriter}
	closeInheritedFilesOnExec()
	// Detached from this terminal (setsid): closing it or pressing Ctrl-C in it later does not
	// reach the dev cluster; `make dev-cluster-down` stops it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		_ = statusWriter.Close()
		return err
	}
	_ = statusWriter.Close()
	if err := os.WriteFile(pidFile(opts.dir), []byte(strconv.Itoa(cmd.Process.Pid)), 0o640); err != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		return err
	}

	// Interrupted while starting: have the background process stop what it started; it
	// then closes the pipe, which ends the loop below.
	stopOnInterrupt := context.AfterFunc(ctx, func() { _ = cmd.Process.Signal(syscall.SIGTERM) })
	defer stopOnInterrupt()

	ready := false
	status := bufio.NewScanner(statusReader)
	for status.Scan() {
		if status.Text() == readyLine {
			ready = true
			continue
		}
		fmt.Println(status.Text())
	}
	if !ready {
		_ = cmd.Wait()
		if ctx.Err() != nil {
			return errors.New("interrupted; the dev cluster has been stopped")
		}
		return fmt.Errorf("the dev cluster did not start; see %s", logPath)
	}
	return cmd.Process.Release()
}

// serveDevCluster is the background process: it starts the cluster, reports on the status
// pipe, and stops everything when it is signalled.
func serveDevCluster(ctx context.Context, opts clusterOptions) error {
	// The processes this one starts must not hold the pipe open after it closes its end.
	syscall.CloseOnExec(statusFD)
	status := os.NewFile(statusFD, "status")
	defer func() { _ = os.Remove(pidFile(opts.dir)) }()

	cluster, err := startCluster(ctx, opts, &progress{w: io.MultiWriter(os.Stdout, status)})
	if err != nil {
		_, _ = fmt.Fprintf(status, "Error: %v\n", err)
		return err
	}
	printDevClusterUsage(status, opts, cluster.metricsURL, cluster.registry)
	_, _ = fmt.Fprintln(status, readyLine)
	_ = status.Close()

	<-ctx.Done()
	cluster.stop(os.Stdout)
	return nil
}

// closeInheritedFilesOnExec keeps the files this process inherited (beyond stdin, stdout
// and stderr) from passing on to the background process: a pipe that it held open would
// keep whoever reads that pipe, such as a CI step, waiting for as long as it runs.
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

func printDevClusterUsage(w io.Writer, opts clusterOptions, metricsURL string, registry *localcluster.Registry) {
	_, _ = fmt.Fprintf(w, "\nThe control plane and the manager keep running in the background. In another shell:\n\n")
	_, _ = fmt.Fprintf(w, "  export KUBECONFIG=%s\n", filepath.Join(opts.dir, "kubeconfig"))
	if onPath, err := exec.LookPath("kubectl"); err != nil || !sameFile(onPath, opts.kubectlPath) {
		_, _ = fmt.Fprintf(w, "  alias kubectl=%s\n", opts.kubectlPath)
	}
	_, _ = fmt.Fprintf(w, "  kubectl apply -k config/samples\n")
	_, _ = fmt.Fprintf(w, "  kubectl run jack --image=registry.k8s.io/pause:3.10\n")
	_, _ = fmt.Fprintf(w, "  kubectl get foos\n\n")
	_, _ = fmt.Fprintf(w, "The manager's log is %s.\n", relative(filepath.Join(opts.dir, "manager.log")))
	if metricsURL != "" {
		_, _ = fmt.Fprintf(w, "Its metrics: curl -s %s | grep ^foo_operator_\n", metricsURL)
	}
	if registry != nil {
		_, _ = fmt.Fprintf(w, "\nThe image registry is https://%s; nothing on this machine trusts its CA (%s) but what is told to.\n",
			registry.Host, relative(registry.CAFile))
		_, _ = fmt.Fprintf(w, "Publish every image of every release there with:\n\n")
		_, _ = fmt.Fprintf(w, "  make publish CONTAINER_TOOL=imagebuilder IMAGE_TAG_BASE=%s/foo-operator SSL_CERT_FILE=%s\n\n",
			registry.Host, relative(registry.TrustBundle))
		// A file, for scripts: the registry's port is picked when it starts.
		_ = os.WriteFile(filepath.Join(opts.dir, "registry-host"), []byte(registry.Host+"\n"), 0o644)
	}
	_, _ = fmt.Fprintln(w, "Stop everything with: make dev-cluster-down")
}

func sameFile(a, b string) bool {
	infoA, errA := os.Stat(a)
	infoB, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(infoA, infoB)
}

// stopDevCluster signals the background process and waits until it has stopped the
// manager and the control plane and exited.
func stopDevCluster(dir string) error {
	pid, running := devClusterPID(dir)
	if !running {
		fmt.Println("No dev cluster is running.")
		return nil
	}
	out := &progress{w: os.Stdout}
	return out.phase(fmt.Sprintf("Stopping the dev cluster (pid %d)", pid), func() (string, error) {
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			return "", err
		}
		deadline := time.Now().Add(time.Minute)
		ticker := time.NewTicker(100 * time.Millisecond)
		defer ticker.Stop()
		for range ticker.C {
			if !processAlive(pid) {
				return "log in " + relative(filepath.Join(dir, "dev-cluster.log")), nil
			}
			if time.Now().After(deadline) {
				break
			}
		}
		return "", fmt.Errorf("pid %d is still running after a minute; see %s", pid, filepath.Join(dir, "dev-cluster.log"))
	})
}

// devClusterPID returns the pid of the running dev cluster, if there is one. A pid left
// behind by a process that was killed may have been reused by another program: on Linux
// the process's command line tells them apart.
func devClusterPID(dir string) (int, bool) {
	content, err := os.ReadFile(pidFile(dir))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(content)))
	if err != nil || !processAlive(pid) {
		return 0, false
	}
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil &&
		!bytes.Contains(cmdline, []byte("--serve-dev-cluster")) {
		return 0, false
	}
	return pid, true
}

// processAlive reports whether pid runs. A zombie does not count: it has exited, and only
// waits for a parent that may never reap it.
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses and may hold spaces.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) == 0 || fields[0] != "Z"
}
