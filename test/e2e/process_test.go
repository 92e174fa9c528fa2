//go:build e2e

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

package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// stopGracePeriod is how long a process has to exit on SIGTERM before it is killed, as a
// kubelet grants a pod's terminationGracePeriodSeconds.
const stopGracePeriod = 10 * time.Second

// process is a program the suite started; its output goes to a file of its own in the logs
// folder.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	// exited is closed once the process has exited; err then tells how.
	exited chan struct{}
	err    error
}

// startProcess starts binary with args and exactly the environment env, writing its output
// to logDir/name.log. The process is killed if the suite dies without stopping it.
func startProcess(logDir, name string, env []string, binary string, args ...string) (*process, error) {
	logPath := filepath.Join(logDir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, logPath: logPath, cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = logFile.Close()
		close(p.exited)
	}()
	return p, nil
}

// running tells whether the process has not exited yet.
func (p *process) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop asks the process to exit and kills it if it has not after stopGracePeriod. It is a
// no-op for a process that already exited.
func (p *process) stop() error {
	if !p.running() {
		return nil
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stopping %s: %w", p.name, err)
	}
	select {
	case <-p.exited:
		return nil
	case <-time.After(stopGracePeriod):
		_ = p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("%s did not exit within %s of SIGTERM and was killed", p.name, stopGracePeriod)
	}
}

// processEnv is the environment of a started process: just enough to run, plus extra, so
// that nothing of the suite's own environment (a KUBECONFIG above all) leaks into it.
func processEnv(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir()}, extra...)
}
