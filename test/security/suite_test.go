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
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/example/foo-operator/test/harness/suite"
)

// This suite installs the operator as shipped (config/default) on an apiserver with RBAC
// authorization and Pod Security admission, and runs the manager binary with nothing but
// its ServiceAccount's token.

// environment is the control plane with the operator installed, and the manager binary.
var environment = suite.EnvironmentBeforeSuite(suite.Options{
	WorkDirPrefix: "foo-security-", EventuallyTimeout: 30 * time.Second, StopTimeout: 10 * time.Second,
})

func TestSecurity(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Security suite")
}
