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
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/example/foo-operator/test/harness/suite"
	"github.com/example/foo-operator/test/localcluster"
)

// This suite installs the operator as shipped (config/default) on an apiserver with RBAC
// authorization and Pod Security admission, and runs the manager binary with nothing but
// its ServiceAccount's token.

// environment is the control plane with the operator installed, and the manager binary.
var environment *suite.Environment

func TestSecurity(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(30 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	RunSpecs(t, "Security suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	environment = suite.SetUpEnvironment(ctx, "foo-security-")
})

// startOperator runs the manager binary with the operator ServiceAccount's token and the
// flags of config/manager. It is stopped when the spec ends, and its log is printed if the
// spec failed.
func startOperator(ctx context.Context, name string) *localcluster.Manager {
	GinkgoHelper()
	return environment.StartOperator(ctx, name, 10*time.Second)
}
