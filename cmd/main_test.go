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
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
)

func TestParseNamespaces(t *testing.T) {
	tests := []struct {
		value string
		want  []string
	}{
		{value: "", want: nil},
		{value: "  ", want: nil},
		{value: "team-a", want: []string{"team-a"}},
		{value: "team-a,team-b", want: []string{"team-a", "team-b"}},
		{value: " team-a , team-b ", want: []string{"team-a", "team-b"}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			g := NewWithT(t)
			namespaces, err := parseNamespaces(tt.value)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(namespaces).To(Equal(tt.want))
		})
	}
}

// A value that cannot name namespaces is refused, with the entry and what is wrong with it.
func TestParseNamespacesRefusesWhatCannotBeANamespace(t *testing.T) {
	tests := []struct{ value, want string }{
		{value: "Team-A", want: `"Team-A" is not a namespace name: a lowercase RFC 1123 label`},
		{value: "team_a", want: `"team_a" is not a namespace name`},
		{value: "team-a,,team-b", want: "entry 2 is empty"},
		{value: "team-a,", want: "entry 2 is empty"},
		{value: ",", want: "entry 1 is empty"},
		{value: "team-a,-b", want: `"-b" is not a namespace name`},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			g := NewWithT(t)
			namespaces, err := parseNamespaces(tt.value)
			g.Expect(err).To(MatchError(And(ContainSubstring(`WATCH_NAMESPACE=`), ContainSubstring(tt.want))))
			g.Expect(namespaces).To(BeNil())
		})
	}
}

func TestManagerFlagsValidate(t *testing.T) {
	valid := managerFlags{maxConcurrentReconciles: 4, leaderElection: true,
		leaseDuration: 15 * time.Second, renewDeadline: 10 * time.Second, retryPeriod: 2 * time.Second}
	tests := []struct {
		name   string
		change func(*managerFlags)
		want   string // empty: valid
	}{
		{name: "the defaults", change: func(*managerFlags) {}},
		{name: "no reconciles", change: func(f *managerFlags) { f.maxConcurrentReconciles = 0 },
			want: "--max-concurrent-reconciles=0: must be at least 1"},
		{name: "negative reconciles", change: func(f *managerFlags) { f.maxConcurrentReconciles = -2 }, want: "--max-concurrent-reconciles=-2"},
		{name: "negative lease", change: func(f *managerFlags) { f.leaseDuration = -time.Second },
			want: "--leader-elect-lease-duration=-1s: must be positive"},
		{name: "zero renew deadline", change: func(f *managerFlags) { f.renewDeadline = 0 }, want: "--leader-elect-renew-deadline=0s: must be positive"},
		{name: "negative retry", change: func(f *managerFlags) { f.retryPeriod = -time.Millisecond }, want: "--leader-elect-retry-period=-1ms"},
		{name: "renew past the lease", change: func(f *managerFlags) { f.renewDeadline = 20 * time.Second },
			want: "--leader-elect-renew-deadline=20s: must be shorter than --leader-elect-lease-duration=15s"},
		{name: "retry past the renew deadline", change: func(f *managerFlags) { f.retryPeriod = 9 * time.Second },
			want: "must be longer than 1.2 times --leader-elect-retry-period=9s"},
		{name: "timings without leader election", change: func(f *managerFlags) { f.leaderElection, f.renewDeadline = false, 20*time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			flags := valid
			tt.change(&flags)
			if tt.want == "" {
				g.Expect(flags.validate()).To(Succeed())
				return
			}
			g.Expect(flags.validate()).To(MatchError(ContainSubstring(tt.want)))
		})
	}
}

// A replica started while the apiserver is away waits for it, and starts once it answers.
func TestWaitForAPIServerWaitsUntilItAnswers(t *testing.T) {
	g := NewWithT(t)
	var asked atomic.Int32
	apiserver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asked.Add(1) <= 2 {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
	}))
	defer apiserver.Close()

	g.Expect(waitForAPIServer(context.Background(), &rest.Config{Host: apiserver.URL}, 30*time.Second)).To(Succeed())
	g.Expect(asked.Load()).To(BeEquivalentTo(3), "discovery requests: two refused, then one answered")
}

// An apiserver that never answers ends the wait with the cause of the last failure.
func TestWaitForAPIServerTellsWhyItGaveUp(t *testing.T) {
	g := NewWithT(t)
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	address := listener.Addr().String()
	g.Expect(listener.Close()).To(Succeed()) // nothing listens there now: connections are refused

	err = waitForAPIServer(context.Background(), &rest.Config{Host: "http://" + address}, 1500*time.Millisecond)
	g.Expect(err).To(MatchError(ContainSubstring("connection refused")))
}
