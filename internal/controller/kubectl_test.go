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

package controller

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// What a user sees of Foos through kubectl: the printer columns, short name and category,
// and the field documentation, all of which come from the CRD.
var _ = Describe("kubectl", func() {
	var namespace string

	BeforeEach(func() {
		namespace = createNamespace()
	})

	DescribeTable("shows each Foo's friend, whether it is happy, and its age",
		func(resource string) {
			foo01 := createFoo(namespace, "foo-01", "jack")
			foo02 := createFoo(namespace, "foo-02", "joe")
			createJack(namespace)
			expectHappy(foo01, true, tutorialv1.FriendFoundReason)
			expectHappy(foo02, false, tutorialv1.FriendNotFoundReason)

			lines := strings.Split(strings.TrimSpace(kubectl("get", resource, "--namespace", namespace)), "\n")
			Expect(strings.Fields(lines[0])).To(Equal([]string{"NAME", "FRIEND", "HAPPY", "AGE"}))
			Expect(lines[1:]).To(ConsistOf(
				MatchRegexp(`^foo-01\s+jack\s+true\s+\d+s$`),
				MatchRegexp(`^foo-02\s+joe\s+false\s+\d+s$`),
			))
		},
		Entry("by plural name", "foos"),
		Entry("by short name", "fo"),
		Entry("by category", "tutorial"),
	)

	It("explains spec.name from the API's documentation", func() {
		explained := kubectl("explain", "foo.spec.name")
		Expect(explained).To(ContainSubstring("FIELD: name <string>"))
		// kubectl wraps the description at its own width.
		Expect(strings.Join(strings.Fields(explained), " ")).To(ContainSubstring(
			"name is the name of the friend pod. The pod is looked up in the Foo's own namespace; " +
				"a pod of that name in another namespace does not count."))

		Expect(kubectl("explain", "foo.spec")).To(MatchRegexp(`name\s+<string> -required-`))
	})
})

// kubectl runs the kubectl that `make test` builds (TEST_ASSET_KUBECTL, as envtest names it)
// against the suite's control plane, as a cluster admin, and returns what it printed. Its
// cache stays in the spec's temporary folder.
func kubectl(args ...string) string {
	GinkgoHelper()
	Expect(os.Getenv("TEST_ASSET_KUBECTL")).NotTo(BeEmpty(), "TEST_ASSET_KUBECTL must name a kubectl binary: run the tests with `make test`")
	admin, err := testEnv.AddUser(envtest.User{Name: "kubectl-admin", Groups: []string{"system:masters"}}, nil)
	Expect(err).NotTo(HaveOccurred())
	cli, err := admin.Kubectl()
	Expect(err).NotTo(HaveOccurred())
	stdout, stderr, err := cli.Run(append([]string{"--cache-dir", filepath.Join(GinkgoT().TempDir(), "cache")}, args...)...)
	complaint, _ := io.ReadAll(stderr)
	Expect(err).NotTo(HaveOccurred(), "kubectl %s: %s", strings.Join(args, " "), complaint)
	output, err := io.ReadAll(stdout)
	Expect(err).NotTo(HaveOccurred())
	return string(output)
}
