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

package suite

import (
	"fmt"
	"testing"

	. "github.com/onsi/ginkgo/v2"

	"github.com/example/foo-operator/test/testcluster"
)

// RunSpecsOn runs a suite's specs on the cluster provider gives, leaving out those labelled
// with a capability it lacks: the run first names the cluster, then each label it leaves out
// and why, so that no spec is skipped in silence.
func RunSpecsOn(t *testing.T, provider testcluster.Provider, description string) bool {
	suiteConfig, reporterConfig := GinkgoConfiguration()
	var leftOut []string
	suiteConfig.LabelFilter, leftOut = testcluster.LabelFilter(provider, suiteConfig.LabelFilter)
	fmt.Printf("The cluster under test: %s\n", provider.Description())
	for _, line := range leftOut {
		fmt.Println(line)
	}
	return RunSpecs(t, description, suiteConfig, reporterConfig)
}
