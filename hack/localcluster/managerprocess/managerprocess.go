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

package managerprocess

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/example/foo-operator/hack/localcluster/process"
)

// Options says how to run the operator's manager, or a program that takes its flags
// (the benchmark's references), as a process on this machine.
type Options struct {
	// Name names the process and its log, LogDir/Name.log.
	Name   string
	LogDir string
	// Binary is the manager binary (`make build` builds bin/manager).
	Binary string
	// Kubeconfig is what the manager reads its cluster and credentials from.
	Kubeconfig string
	// Args are added to the flags that bind its endpoints to free loopback ports.
	Args []string
	// PlainMetrics serves metrics over HTTP without authentication, for a reader on this
	// machine (the demo, the benchmark); the default is the manager's own, HTTPS.
	PlainMetrics bool
	// Pprof serves Go's profiles too.
	Pprof bool
	// Env is added to the process's minimal environment.
	Env []string
}

// Manager is a manager process; its endpoints listen on loopback only.
type Manager struct {
	*process.Process
	// MetricsPort, ProbePort and PprofPort are its ports on 127.0.0.1 (PprofPort is 0
	// unless asked for).
	MetricsPort, ProbePort, PprofPort int
}

// Start starts the manager and returns at once; WaitReady waits for it.
func Start(opts Options) (*Manager, error) {
	ports, err := process.FreePorts(3)
	if err != nil {
		return nil, err
	}
	m := &Manager{MetricsPort: ports[0], ProbePort: ports[1]}
	args := []string{
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(m.MetricsPort),
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(m.ProbePort),
	}
	if opts.PlainMetrics {
		args = append(args, "--metrics-secure=false")
	}
	if opts.Pprof {
		m.PprofPort = ports[2]
		args = append(args, "--pprof-bind-address=127.0.0.1:"+strconv.Itoa(m.PprofPort))
	}
	m.Process, err = process.Start(process.Options{
		Name: opts.Name, LogDir: opts.LogDir, Binary: opts.Binary,
		Args: append(args, opts.Args...),
		Env:  process.MinimalEnv(append([]string{"KUBECONFIG=" + opts.Kubeconfig}, opts.Env...)...),
	})
	if err != nil {
		return nil, fmt.Errorf("%w (run `make build` to build the manager)", err)
	}
	return m, nil
}

// MetricsURL is where the manager serves its metrics.
func (m *Manager) MetricsURL(scheme string) string {
	return fmt.Sprintf("%s://127.0.0.1:%d/metrics", scheme, m.MetricsPort)
}

// PprofURL is where the manager serves Go's profiles, if asked to.
func (m *Manager) PprofURL() string {
	return fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/", m.PprofPort)
}

// WaitReady waits until the manager answers its readiness probe, as a kubelet would ask.
func (m *Manager) WaitReady(ctx context.Context, timeout time.Duration) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/readyz", m.ProbePort)
	client := &http.Client{Timeout: 2 * time.Second}
	return process.Poll(ctx, timeout, m.Name+" to answer "+url, func() (bool, string) {
		if !m.Running() {
			return false, m.Name + " ended; " + m.Tail(20)
		}
		response, err := client.Get(url)
		if err != nil {
			return false, err.Error()
		}
		_ = response.Body.Close()
		return response.StatusCode == http.StatusOK, "HTTP " + response.Status
	})
}
