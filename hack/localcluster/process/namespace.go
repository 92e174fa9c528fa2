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
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Namespace is a private network, mount and PID namespace for the local node: the node's
// processes, its pods and every pod and service address live in there. Its network has only
// loopback and the interfaces the library makes inside it, and no route out, so nothing the
// cluster sends can reach a non-loopback address of the machine. Its mounts are private, so
// that the node writes its state into the cluster's folder while keeping the paths it
// expects (/var/lib/kubelet, /run/containerd), and nothing of it outlives the namespace.
// Killing its first process ends every process in it, containers included.
type Namespace struct {
	// PID is the first process of the namespace (PID 1 inside), as this machine sees it.
	PID int

	unshare *Process
	netns   *os.File

	mu        sync.Mutex
	listeners []net.Listener
}

// namespaceInit is PID 1 of the namespace: tini reaps the processes that end up orphaned in
// there (containerd's shims, once the containerd that started them lets go of them).
var namespaceInit = []string{"tini", "-s", "--", "sleep", "infinity"}

// StartNamespace creates the namespaces. unshare makes the mounts private before anything
// is mounted, so that no mount made inside propagates to the machine; --kill-child ties the
// namespace's life to unshare's, and unshare's to the caller's.
func StartNamespace(ctx context.Context, logDir string) (*Namespace, error) {
	for _, tool := range []string{"unshare", "nsenter", "tini", "ip", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("the local node needs %s (Debian packages util-linux, tini, iproute2, mount): %w", tool, err)
		}
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("the local node makes network, mount and PID namespaces, which needs root")
	}
	args := append([]string{"--net", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc", "--propagation", "private", "--"}, namespaceInit...)
	unshare, err := Start(Options{Name: "namespace", LogDir: logDir, Binary: "unshare", Args: args, Env: MinimalEnv()})
	if err != nil {
		return nil, err
	}
	ns := &Namespace{unshare: unshare}
	// PID 1 of the namespace is unshare's only child, once it has forked.
	err = Poll(ctx, 10*time.Second, "the namespace's first process", func() (bool, string) {
		if !unshare.Running() {
			return false, "unshare ended: " + unshare.Tail(10)
		}
		children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", unshare.cmd.Process.Pid, unshare.cmd.Process.Pid))
		if err != nil {
			return false, err.Error()
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(children)))
		if err != nil {
			return false, "no child yet"
		}
		ns.PID = pid
		return true, ""
	})
	if err != nil {
		unshare.Kill()
		return nil, err
	}
	if ns.netns, err = os.Open(fmt.Sprintf("/proc/%d/ns/net", ns.PID)); err != nil {
		unshare.Kill()
		return nil, err
	}
	return ns, nil
}

// enter returns the command that runs binary with args inside the namespace, in dir.
func (ns *Namespace) enter(binary string, args []string, dir string) (string, []string) {
	enter := []string{"--target", strconv.Itoa(ns.PID), "--net", "--mount", "--pid"}
	if dir != "" {
		enter = append(enter, "--wd="+dir)
	}
	return "nsenter", append(append(enter, "--", binary), args...)
}

// Command is a command to run inside the namespace, such as a test's probe of a pod address.
func (ns *Namespace) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	binary, args := ns.enter(name, args, "")
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = MinimalEnv()
	return cmd
}

// Run runs a command inside the namespace and fails with its output.
func (ns *Namespace) Run(ctx context.Context, name string, args ...string) error {
	return ns.RunWithInput(ctx, "", name, args...)
}

// RunWithInput runs a command inside the namespace with input on its standard input, and
// fails with its output.
func (ns *Namespace) RunWithInput(ctx context.Context, input, name string, args ...string) error {
	cmd := ns.Command(ctx, name, args...)
	cmd.Stdin = strings.NewReader(input)
	if output, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s inside the node's namespace: %w\n%s", name, strings.Join(args, " "), err, output)
	}
	return nil
}

// InNetwork runs fn on a thread that has entered the namespace's network: sockets fn
// creates belong to that network, wherever they are used afterwards.
func (ns *Namespace) InNetwork(fn func() error) error {
	result := make(chan error, 1)
	go func() {
		// The thread stays locked if it cannot go back to the machine's network, so that
		// the runtime retires it with this goroutine instead of reusing it.
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			result <- err
			return
		}
		defer func() { _ = home.Close() }()
		if err := unix.Setns(int(ns.netns.Fd()), unix.CLONE_NEWNET); err != nil {
			result <- fmt.Errorf("entering the node's network: %w", err)
			return
		}
		fnErr := fn()
		if err := unix.Setns(int(home.Fd()), unix.CLONE_NEWNET); err != nil {
			result <- errors.Join(fnErr, fmt.Errorf("leaving the node's network: %w", err))
			return
		}
		runtime.UnlockOSThread()
		result <- fnErr
	}()
	return <-result
}

// Dial connects to address inside the namespace's network.
func (ns *Namespace) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	var conn net.Conn
	err := ns.InNetwork(func() error {
		var err error
		conn, err = (&net.Dialer{Timeout: 10 * time.Second}).DialContext(ctx, network, address)
		return err
	})
	return conn, err
}

// ForwardOut serves address (a loopback host:port) on the machine and forwards each
// connection to the same address inside the namespace: a user's kubeconfig then names the
// same server inside and out.
func (ns *Namespace) ForwardOut(address string) error {
	listener, err := net.Listen("tcp", address)
	if err != nil {
		return fmt.Errorf("forwarding %s out of the node's namespace: %w", address, err)
	}
	ns.serve(listener, func() (net.Conn, error) { return ns.Dial(context.Background(), "tcp", address) })
	return nil
}

// ForwardIn serves address (a loopback host:port) inside the namespace and forwards each
// connection to the same address on the machine: images named after the registry on the
// machine's loopback are pulled by the node under the same name.
func (ns *Namespace) ForwardIn(address string) error {
	var listener net.Listener
	err := ns.InNetwork(func() error {
		var err error
		listener, err = net.Listen("tcp", address)
		return err
	})
	if err != nil {
		return fmt.Errorf("forwarding %s into the node's namespace: %w", address, err)
	}
	ns.serve(listener, func() (net.Conn, error) { return net.DialTimeout("tcp", address, 10*time.Second) })
	return nil
}

func (ns *Namespace) serve(listener net.Listener, dial func() (net.Conn, error)) {
	ns.mu.Lock()
	ns.listeners = append(ns.listeners, listener)
	ns.mu.Unlock()
	go func() {
		for {
			conn, err := listener.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = conn.Close() }()
				upstream, err := dial()
				if err != nil {
					return
				}
				defer func() { _ = upstream.Close() }()
				done := make(chan struct{}, 2)
				go func() { _, _ = io.Copy(upstream, conn); closeWrite(upstream); done <- struct{}{} }()
				go func() { _, _ = io.Copy(conn, upstream); closeWrite(conn); done <- struct{}{} }()
				<-done
				<-done
			}()
		}
	}()
}

func closeWrite(conn net.Conn) {
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.CloseWrite()
	}
}

// Stop ends every process in the namespace at once (SIGKILL to its PID 1 takes the whole
// PID namespace down, containers included) and closes the forwarders.
func (ns *Namespace) Stop() {
	ns.mu.Lock()
	for _, listener := range ns.listeners {
		_ = listener.Close()
	}
	ns.listeners = nil
	ns.mu.Unlock()
	if ns.PID != 0 {
		_ = unix.Kill(ns.PID, unix.SIGKILL)
	}
	// unshare waits for its child, the namespace's PID 1, and reaps it; killed first, it
	// would leave that process to the machine's init.
	select {
	case <-ns.unshare.Exited():
	case <-time.After(10 * time.Second):
		ns.unshare.Kill()
	}
	if ns.netns != nil {
		_ = ns.netns.Close()
	}
}
