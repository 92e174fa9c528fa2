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
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

// Host is where the processes of one local cluster run: its folder and the folder of their
// logs, the group they are stopped with, the node's namespace they run in (nil for a
// cluster without a node), and where progress lines go.
type Host struct {
	Dir, LogDir string
	Group       *Group
	Namespace   *Namespace
	Progress    Progress
}

// Start starts a process of the cluster, logging into LogDir, stopped with the group.
func (h *Host) Start(opts Options) (*Process, error) {
	opts.LogDir = h.LogDir
	return h.Group.Start(opts)
}

// StartRestarting starts a process that the cluster starts again whenever it ends on its
// own, a second later, as the kubelet does a static pod of the control plane: kube-scheduler
// and kube-controller-manager end themselves on some errors by design (a scheduler whose
// cache went inconsistent across an apiserver outage exits), and a cluster without them
// schedules nothing. Each run appends to the same log, which says how the last one ended.
func (h *Host) StartRestarting(opts Options) error {
	p, err := h.Start(opts)
	if err != nil {
		return err
	}
	go func() {
		for {
			<-p.Exited()
			time.Sleep(time.Second)
			next, err := h.Start(opts)
			if err != nil {
				return // the cluster is stopping
			}
			p = next
		}
	}()
	return nil
}

// Dial connects where the cluster's processes listen: inside the node's namespace, if any.
func (h *Host) Dial(network, address string) (net.Conn, error) {
	if h.Namespace != nil {
		return h.Namespace.Dial(context.Background(), network, address)
	}
	return net.DialTimeout(network, address, 5*time.Second)
}

// FreePorts finds n ports of 127.0.0.1 that are free now on the machine. Inside the node's
// namespace every port is free.
func FreePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Alive tells whether a process with this PID runs (and is not a zombie).
func Alive(pid int) bool {
	fields, err := stat(pid)
	return err == nil && len(fields) > 0 && fields[0] != "Z"
}

// stat returns the fields of /proc/<pid>/stat after the command, which is in parentheses
// and may hold spaces: the state first, then the parent's PID.
func stat(pid int) ([]string, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])), nil
}
