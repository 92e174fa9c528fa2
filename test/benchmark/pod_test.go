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

import "testing"

func TestPodCgroup(t *testing.T) {
	const uid = "0b5a4c1e-7f3d-4c2a-9e1b-5d6f7a8b9c0d"
	for _, tc := range []struct {
		name, cgroups, want string
		found               bool
	}{{
		name: "cgroup v1, cpu and cpuacct mounted together",
		cgroups: "12:memory:/node/kubepods/burstable/pod" + uid + "/abc123\n" +
			"4:cpu,cpuacct:/node/kubepods/burstable/pod" + uid + "/abc123\n1:name=systemd:/\n",
		want: "/node/kubepods/burstable/pod" + uid + "/abc123", found: true,
	}, {
		name:    "another pod's container",
		cgroups: "4:cpu,cpuacct:/node/kubepods/burstable/pod" + uid + "x/abc123\n",
	}, {
		name:    "no CPU accounting hierarchy",
		cgroups: "12:memory:/node/kubepods/burstable/pod" + uid + "/abc123\n0::/\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, found := podCgroup(tc.cgroups, uid)
			if got != tc.want || found != tc.found {
				t.Errorf("podCgroup() = %q, %t; want %q, %t", got, found, tc.want, tc.found)
			}
		})
	}
}
