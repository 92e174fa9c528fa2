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
		{value: "team-a", want: []string{"team-a"}},
		{value: "team-a,team-b", want: []string{"team-a", "team-b"}},
		{value: " team-a , ,team-b,", want: []string{"team-a", "team-b"}},
		{value: ",", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			NewWithT(t).Expect(parseNamespaces(tt.value)).To(Equal(tt.want))
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
