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

package v1_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/example/foo-operator/test/harness"
)

// This suite checks the Foo API as the apiserver serves it from the generated CRD: what it
// accepts, what it rejects, and what it tells the user about a rejection. No operator runs.

var controlPlane *harness.ControlPlane

func TestAPI(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Foo API suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	controlPlane, err = harness.StartControlPlane(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		Expect(controlPlane.Stop()).To(Succeed())
	})
})
