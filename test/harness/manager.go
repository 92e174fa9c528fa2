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

package harness

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// BuildManager builds the manager binary from the source tree into dir and returns its path.
func BuildManager(dir string) (string, error) {
	binary := filepath.Join(dir, "manager")
	cmd := exec.Command("go", "build", "-o", binary, ".")
	cmd.Dir = RepoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the manager: %w\n%s", err, out)
	}
	return binary, nil
}

// FreePort returns a TCP port on the loopback interface that nothing listens on now.
func FreePort() (int, error) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer listener.Close()
	return listener.Addr().(*net.TCPAddr).Port, nil
}

// ManagerOptions says how to run one manager process.
type ManagerOptions struct {
	// Binary is the manager binary, from BuildManager.
	Binary string
	// Kubeconfig is the file the manager reads its credentials from.
	Kubeconfig string
	// LogDir receives the process's output, in <Name>.log.
	LogDir string
	// Name tells replicas apart in logs.
	Name string
	// Args are added to the flags that bind the endpoints to free loopback ports.
	Args []string
}

// Manager is a running manager process. Its endpoints listen on loopback only.
type Manager struct {
	Name        string
	MetricsPort int
	ProbePort   int
	LogPath     string

	cmd     *exec.Cmd
	log     *lockedBuffer
	logFile *os.File
	exited  chan struct{}
	waitErr error
}

// StartManager starts the manager binary as a separate process.
func StartManager(opts ManagerOptions) (*Manager, error) {
	metricsPort, err := FreePort()
	if err != nil {
		return nil, err
	}
	probePort, err := FreePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(opts.LogDir, opts.Name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metricsPort),
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probePort),
	}, opts.Args...)
	m := &Manager{
		Name: opts.Name, MetricsPort: metricsPort, ProbePort: probePort, LogPath: logPath,
		log: &lockedBuffer{}, logFile: logFile, exited: make(chan struct{}),
	}
	m.cmd = exec.Command(opts.Binary, args...)
	m.cmd.Env = append(os.Environ(), "KUBECONFIG="+opts.Kubeconfig)
	// A manager in a pod has no terminal; and it must not get the test's Ctrl-C first.
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	output := multiWriter{m.log, logFile}
	m.cmd.Stdout, m.cmd.Stderr = output, output
	if err := m.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting manager %s: %w", opts.Name, err)
	}
	go func() {
		m.waitErr = m.cmd.Wait()
		m.logFile.Close()
		close(m.exited)
	}()
	return m, nil
}

// PID is the process id of the manager.
func (m *Manager) PID() int { return m.cmd.Process.Pid }

// Exited is closed when the process has ended.
func (m *Manager) Exited() <-chan struct{} { return m.exited }

// ExitCode is the process's exit code once it has exited, or -1 if a signal ended it.
func (m *Manager) ExitCode() int {
	<-m.exited
	return m.cmd.ProcessState.ExitCode()
}

// Signal sends sig to the process.
func (m *Manager) Signal(sig syscall.Signal) error {
	if err := m.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// Stop asks the process to end with SIGTERM, as the kubelet does, and kills it if it has not
// ended within grace. It reports how long the process took to end.
func (m *Manager) Stop(grace time.Duration) (time.Duration, error) {
	start := time.Now()
	select {
	case <-m.exited:
		return 0, nil
	default:
	}
	if err := m.Signal(syscall.SIGTERM); err != nil {
		return 0, err
	}
	select {
	case <-m.exited:
		return time.Since(start), nil
	case <-time.After(grace):
		_ = m.Signal(syscall.SIGKILL)
		<-m.exited
		return time.Since(start), fmt.Errorf("manager %s did not end within %s of SIGTERM and was killed", m.Name, grace)
	}
}

// Kill ends the process with SIGKILL, as a node failure or an OOM kill would, and waits for it.
func (m *Manager) Kill() {
	_ = m.Signal(syscall.SIGKILL)
	<-m.exited
}

// Logs is everything the process has written so far.
func (m *Manager) Logs() string { return m.log.String() }

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type multiWriter struct {
	memory *lockedBuffer
	file   *os.File
}

func (w multiWriter) Write(p []byte) (int, error) {
	_, _ = w.file.Write(p)
	return w.memory.Write(p)
}
