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
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/example/foo-operator/hack/localcluster/managerprocess"
	"github.com/example/foo-operator/test/benchmark/report"
)

// clockTicksPerSecond is the unit of the CPU times in /proc/PID/stat (USER_HZ), which is
// 100 on every Linux architecture Go supports.
const clockTicksPerSecond = 100

// runner is one implementation at work: a process on this machine, or ours as the
// operator's pod on a node of the local cluster (--in-cluster).
type runner interface {
	Name() string
	// Started is when it was started: its process, or the creation of its Deployment.
	Started() time.Time
	WaitReady(ctx context.Context, timeout time.Duration) error
	// Exited is closed once it has ended (or restarted) without being asked to.
	Exited() <-chan struct{}
	// Log returns the file of its log, having saved it there first if need be; LogHint
	// names that file for messages.
	Log(ctx context.Context) (string, error)
	LogHint() string

	cpuSeconds() (float64, error)
	peakRSSBytes() (int64, error)
	heapAfterGCBytes(ctx context.Context) (int64, error)
	profileCPU(ctx context.Context, duration time.Duration, path string) error
	requestsByVerb(ctx context.Context) (map[string]float64, error)
	saveMetrics(ctx context.Context, path string) error
	stop()
}

// process is one implementation running as its own process on this machine, serving its
// client-go metrics, pprof and readiness on ports of 127.0.0.1.
type process struct {
	*managerprocess.Manager
	name                 string
	metricsURL, pprofURL string
	started              time.Time
}

var _ runner = &process{}

func (p *process) Name() string                        { return p.name }
func (p *process) Started() time.Time                  { return p.started }
func (p *process) LogHint() string                     { return p.LogPath }
func (p *process) Log(context.Context) (string, error) { return p.LogPath, nil }

// startProcess runs binary with the flags the manager takes, and extraArgs, against the
// cluster of kubeconfig.
func startProcess(name, binary string, extraArgs []string, kubeconfig, logPath string) (*process, error) {
	manager, err := managerprocess.Start(managerprocess.Options{
		Name: strings.TrimSuffix(filepath.Base(logPath), ".log"), LogDir: filepath.Dir(logPath),
		Binary: binary, Kubeconfig: kubeconfig, Args: extraArgs,
		// The references serve plain metrics by themselves.
		PlainMetrics: name == report.Ours, Pprof: true,
	})
	if err != nil {
		return nil, err
	}
	return &process{
		Manager: manager, name: name, started: time.Now(),
		metricsURL: manager.MetricsURL("http"), pprofURL: manager.PprofURL(),
	}, nil
}

// stop asks the process to end, as the kubelet would, and kills it if it does not.
func (p *process) stop() {
	_, _ = p.Stop(10 * time.Second)
}

// cpuSeconds returns the CPU time the process has used, user and system.
func (p *process) cpuSeconds() (float64, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.PID()))
	if err != nil {
		return 0, err
	}
	// The command name in parentheses may hold spaces; the fields after it are fixed:
	// state is field 3, utime field 14 and stime field 15.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc stat %q", stat)
	}
	utime, err := strconv.ParseFloat(fields[11], 64)
	if err != nil {
		return 0, err
	}
	stime, err := strconv.ParseFloat(fields[12], 64)
	if err != nil {
		return 0, err
	}
	return (utime + stime) / clockTicksPerSecond, nil
}

// peakRSSBytes returns the most resident memory the process has had (VmHWM).
func (p *process) peakRSSBytes() (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.PID()))
	if err != nil {
		return 0, err
	}
	scanner := bufio.NewScanner(bytes.NewReader(status))
	for scanner.Scan() {
		if fields := strings.Fields(scanner.Text()); len(fields) == 3 && fields[0] == "VmHWM:" && fields[2] == "kB" {
			kib, err := strconv.ParseInt(fields[1], 10, 64)
			return kib * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", p.PID())
}

var heapAllocLine = regexp.MustCompile(`(?m)^# HeapAlloc = (\d+)$`)

// heapAfterGCBytes makes the process collect garbage and returns the heap that is left:
// the live heap. The heap profile endpoint runs a GC when asked with gc=1 and, in its text
// form, ends with the runtime's memory statistics.
func (p *process) heapAfterGCBytes(ctx context.Context) (int64, error) {
	status, body, err := get(ctx, p.pprofURL+"heap?gc=1&debug=1")
	if err != nil {
		return 0, err
	}
	if status != http.StatusOK {
		return 0, fmt.Errorf("heap profile of %s: HTTP %d", p.name, status)
	}
	return heapAlloc(body, p.name)
}

// heapAlloc reads the live heap from the text form of a heap profile, which ends with the
// runtime's memory statistics.
func heapAlloc(profile []byte, name string) (int64, error) {
	match := heapAllocLine.FindSubmatch(profile)
	if match == nil {
		return 0, fmt.Errorf("no HeapAlloc in the heap profile of %s", name)
	}
	return strconv.ParseInt(string(match[1]), 10, 64)
}

// profileCPU saves a CPU profile of the process over duration to path.
func (p *process) profileCPU(ctx context.Context, duration time.Duration, path string) error {
	status, body, err := get(ctx, fmt.Sprintf("%sprofile?seconds=%d", p.pprofURL, int(duration.Seconds())))
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("CPU profile of %s: HTTP %d", p.name, status)
	}
	return os.WriteFile(path, body, 0o644)
}

// requestsByVerb returns client-go's count of API requests the process has made, by HTTP
// method, from its rest_client_requests_total metric.
func (p *process) requestsByVerb(ctx context.Context) (map[string]float64, error) {
	status, body, err := get(ctx, p.metricsURL)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("metrics of %s: HTTP %d", p.name, status)
	}
	return sumCounter(body, "rest_client_requests_total", "method", nil)
}

// saveMetrics writes the process's metrics exposition to path.
func (p *process) saveMetrics(ctx context.Context, path string) error {
	status, body, err := get(ctx, p.metricsURL)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("metrics of %s: HTTP %d", p.name, status)
	}
	return os.WriteFile(path, body, 0o644)
}

// sumCounter adds up the samples of counter metric in a Prometheus text exposition by the
// value of label by, keeping only the samples whose labels include every pair of match.
func sumCounter(exposition []byte, metric, by string, match map[string]string) (map[string]float64, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(exposition))
	if err != nil {
		return nil, err
	}
	sums := map[string]float64{}
	for _, sample := range families[metric].GetMetric() {
		labels := map[string]string{}
		for _, pair := range sample.GetLabel() {
			labels[pair.GetName()] = pair.GetValue()
		}
		matches := true
		for name, value := range match {
			matches = matches && labels[name] == value
		}
		if matches {
			sums[labels[by]] += sample.GetCounter().GetValue()
		}
	}
	return sums, nil
}

var httpClient = &http.Client{Timeout: 10 * time.Minute}

func get(ctx context.Context, url string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}
