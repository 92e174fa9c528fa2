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

package security

import (
	"context"
	"net"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// exitTimeout bounds how long a manager given a configuration it cannot run with may take
// to exit: it checks its configuration before it talks to the cluster.
const exitTimeout = 10 * time.Second

var _ = Describe("A configuration mistake", func() {
	DescribeTable("stops the manager at once, with a message that names the value and what is wrong with it",
		func(ctx context.Context, env []string, args []string, wantLogged string) {
			manager := environment.StartOperatorWithEnv(ctx, "misconfigured", env, args...)
			Eventually(manager.Exited()).WithTimeout(exitTimeout).Should(BeClosed(),
				"the manager to exit; its log so far:\n%s", manager.Tail(10))
			Expect(manager.ExitCode()).NotTo(BeZero(), "the manager's exit code")
			Expect(manager.Logs()).To(ContainSubstring(wantLogged))
		},
		Entry("WATCH_NAMESPACE with an uppercase name", []string{"WATCH_NAMESPACE=team-a,Team-B"}, nil,
			`WATCH_NAMESPACE=\"team-a,Team-B\": \"Team-B\" is not a namespace name: a lowercase RFC 1123 label`),
		Entry("WATCH_NAMESPACE with an underscore", []string{"WATCH_NAMESPACE=team_a"}, nil,
			`\"team_a\" is not a namespace name`),
		Entry("WATCH_NAMESPACE with nothing between two commas", []string{"WATCH_NAMESPACE=team-a,,team-b"}, nil,
			`WATCH_NAMESPACE=\"team-a,,team-b\": entry 2 is empty`),
		Entry("no reconcile at a time", nil, []string{"--max-concurrent-reconciles=0"},
			`--max-concurrent-reconciles=0: must be at least 1`),
		Entry("a negative lease duration", nil, []string{"--leader-elect-lease-duration=-15s"},
			`--leader-elect-lease-duration=-15s: must be positive`),
		Entry("a renew deadline past the lease duration", nil, []string{"--leader-elect-renew-deadline=20s"},
			`--leader-elect-renew-deadline=20s: must be shorter than --leader-elect-lease-duration=15s`),
		Entry("a metrics address without a port", nil, []string{"--metrics-bind-address=127.0.0.1"},
			`address 127.0.0.1: missing port in address`),
	)

	It("stops the manager at once when its metrics address is taken, naming the address", func(ctx context.Context) {
		taken, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(taken.Close)
		manager := environment.StartOperator(ctx, "metrics-address-taken", "--metrics-bind-address="+taken.Addr().String())
		Eventually(manager.Exited()).WithTimeout(exitTimeout).Should(BeClosed(),
			"the manager to exit; its log so far:\n%s", manager.Tail(10))
		Expect(manager.ExitCode()).NotTo(BeZero(), "the manager's exit code")
		Expect(manager.Logs()).To(ContainSubstring("listen tcp " + taken.Addr().String() + ": bind: address already in use"))
	})
})
