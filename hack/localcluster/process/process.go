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

package process

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options says how to run one program of the local cluster.
type Options struct {
	// Name names the process in messages and its log file, LogDir/Name.log.
	Name string
	// LogDir receives the log. The file is appended to, so that a restarted process keeps
	// the story of its earlier runs.
	LogDir string
	// Binary and Args are the program and its arguments.
	Binary string
	Args   []string
	// Env is the whole environment of the process; nil means a minimal one (PATH and HOME),
	// so that nothing of the caller's environment, a KUBECONFIG above all, leaks into it.
	Env []string
	// Dir is the working directory; empty means the caller's.
	Dir string
	// Namespace, when set, runs the process inside the local node's namespaces.
	Namespace *Namespace
	// Stdout, when set, also receives the process's standard output (besides the log).
	Stdout io.Writer
}

// Process is a program the library started. Every process runs in a process group of its
// own, so that a Ctrl-C in the terminal reaches only the caller, which stops its processes
// in order; and dies with the caller, should the caller die without stopping it.
type Process struct {
	Name    string
	LogPath string

	cmd    *exec.Cmd
	exited chan struct{}
	err    error
	// inNamespace is set for a process started through nsenter: its PID is nsenter's, and
	// the program is nsenter's only child.
	inNamespace bool
}

// StartProcess starts a program and returns at once.
func Start(opts Options) (*Process, error) {
	if opts.Name == "" || opts.LogDir == "" || opts.Binary == "" {
		return nil, errors.New("a process needs a name, a log folder and a binary")
	}
	if err := os.MkdirAll(opts.LogDir, 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(opts.LogDir, opts.Name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	binary, args := opts.Binary, opts.Args
	if opts.Namespace != nil {
		binary, args = opts.Namespace.enter(binary, args, opts.Dir)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = opts.Env
	if cmd.Env == nil {
		cmd.Env = MinimalEnv()
	}
	if opts.Namespace == nil {
		cmd.Dir = opts.Dir
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if opts.Stdout != nil {
		cmd.Stdout = io.MultiWriter(logFile, opts.Stdout)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	_, _ = fmt.Fprintf(logFile, "=== %s started %s: %s %s\n", opts.Name, time.Now().Format(time.RFC3339), opts.Binary, strings.Join(opts.Args, " "))
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", opts.Name, opts.Binary, err)
	}
	p := &Process{Name: opts.Name, LogPath: logPath, cmd: cmd, exited: make(chan struct{}), inNamespace: opts.Namespace != nil}
	go func() {
		p.err = cmd.Wait()
		_, _ = fmt.Fprintf(logFile, "=== %s ended %s: %v\n", opts.Name, time.Now().Format(time.RFC3339), DescribeExit(p.err))
		_ = logFile.Close()
		close(p.exited)
	}()
	return p, nil
}

// MinimalEnv is the environment a started process gets unless told otherwise.
func MinimalEnv(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()}, extra...)
}

// DescribeExit says how a command ended, for a log line.
func DescribeExit(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// InNamespace tells whether the process runs inside the node's namespace.
func (p *Process) InNamespace() bool { return p.inNamespace }

// Exited is closed once the process has ended.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Running tells whether the process has not ended yet.
func (p *Process) Running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// Err is how the process ended; call it once Exited is closed.
func (p *Process) Err() error {
	<-p.exited
	return p.err
}

// ExitCode is the process's exit code once it has ended, or -1 if a signal ended it.
func (p *Process) ExitCode() int {
	<-p.exited
	return p.cmd.ProcessState.ExitCode()
}

// PID is the process id of the program itself (not of nsenter, for a process in the
// node's namespaces), as this machine's /proc names it; 0 once it has ended.
func (p *Process) PID() int {
	if !p.inNamespace {
		return p.cmd.Process.Pid
	}
	children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", p.cmd.Process.Pid, p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(children)))
	if err != nil {
		return 0
	}
	return pid
}

// Signal sends sig to the program. Signalling an ended process is not an error.
func (p *Process) Signal(sig syscall.Signal) error {
	if !p.Running() {
		return nil
	}
	pid := p.PID()
	if pid == 0 {
		return nil
	}
	if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signalling %s: %w", p.Name, err)
	}
	return nil
}

// Stop asks the process to end with SIGTERM and kills it if it has not ended within grace,
// as the kubelet does with a container. It reports how long the process took to end, and
// an error if it had to be killed.
func (p *Process) Stop(grace time.Duration) (time.Duration, error) {
	start := time.Now()
	if !p.Running() {
		return 0, nil
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		return 0, err
	}
	select {
	case <-p.exited:
		return time.Since(start), nil
	case <-time.After(grace):
		p.Kill()
		return time.Since(start), fmt.Errorf("%s did not end within %s of SIGTERM and was killed", p.Name, grace)
	}
}

// Kill ends the process with SIGKILL, as a node failure or an OOM kill would, and waits.
func (p *Process) Kill() {
	_ = p.Signal(syscall.SIGKILL)
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// Logs is everything the process has written to its log so far.
func (p *Process) Logs() string {
	data, _ := os.ReadFile(p.LogPath)
	return string(data)
}

// Tail is the last n lines of the process's log, headed by its path, for a failure message.
func (p *Process) Tail(n int) string { return Tail(p.LogPath, n) }

// Group is the processes of one cluster, stopped in the reverse order of their start.
type Group struct {
	mu   sync.Mutex
	list []*Process
	// closed is set once the cluster stops: no process starts after that.
	closed bool
}

// errStopping refuses a process to a cluster that is stopping.
var errStopping = errors.New("the cluster is stopping")

// Start starts a process and adds it to the list, unless the list is closed.
func (ps *Group) Start(opts Options) (*Process, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		return nil, fmt.Errorf("starting %s: %w", opts.Name, errStopping)
	}
	p, err := Start(opts)
	if err != nil {
		return nil, err
	}
	ps.list = append(ps.list, p)
	return p, nil
}

// Close lets no process start any more, and returns every process started.
func (ps *Group) Close() []*Process {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.closed = true
	return append([]*Process(nil), ps.list...)
}

// All is every process started.
func (ps *Group) All() []*Process {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return append([]*Process(nil), ps.list...)
}
