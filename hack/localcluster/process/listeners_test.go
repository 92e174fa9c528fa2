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
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestNonLoopbackListenersKeepsOnlyListeningSocketsOffLoopback(t *testing.T) {
	const header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	tables := map[string]string{
		"tcp": header +
			"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 101 1\n" + // 127.0.0.1:8080
			"   1: 00000000:07E8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 102 1\n" + // 0.0.0.0:2024
			"   2: 0200C80A:1F90 0300C80A:D431 01 00000000:00000000 00:00000000 00000000     0        0 103 1\n" + // established
			"   3: 0200C80A:2710 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 104 1\n", // 10.200.0.2:10000
		"tcp6": header +
			// [::1]:8080, then [::]:8081
			"   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 201 1\n" +
			"   1: 00000000000000000000000000000000:1F91 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 202 1\n",
		"udp": header +
			"   0: 00000000:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 301 2\n" + // 0.0.0.0:53
			"   1: 0100007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 302 2\n", // 127.0.0.1:53
	}
	want := map[string][]listener{
		"tcp": {
			{Protocol: "tcp", Address: "0.0.0.0:2024", inode: "102"},
			{Protocol: "tcp", Address: "10.200.0.2:10000", inode: "104"},
		},
		"tcp6": {{Protocol: "tcp6", Address: "[::]:8081", inode: "202"}},
		"udp":  {{Protocol: "udp", Address: "0.0.0.0:53", inode: "301"}},
	}
	for protocol, table := range tables {
		got, err := nonLoopbackListeners(protocol, strings.NewReader(table))
		if err != nil {
			t.Fatalf("%s: %v", protocol, err)
		}
		if !reflect.DeepEqual(got, want[protocol]) {
			t.Errorf("%s: got %+v, want %+v", protocol, got, want[protocol])
		}
	}
}

func TestDescendsFromFollowsParents(t *testing.T) {
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	if !descendsFrom(child.Process.Pid, os.Getpid()) {
		t.Errorf("a child of the test does not descend from it")
	}
	if !descendsFrom(os.Getpid(), os.Getpid()) {
		t.Errorf("the test does not descend from itself")
	}
	if descendsFrom(os.Getppid(), os.Getpid()) {
		t.Errorf("the test's parent descends from the test")
	}
}
