//go:build e2e

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

package e2e

import (
	. "github.com/onsi/ginkgo/v2"
)

// The journeys share one cluster and one OLM, and each installs the operator's cluster-wide
// CRD: they run one after the other, each leaving the cluster as it found it.
var _ = Describe("foo-operator, installed the ways users install it", Ordered, func() {
	AfterEach(describePodsOnFailure)

	Describe("with operator-sdk run bundle and run bundle-upgrade", Ordered, runBundleJourney)
	Describe("from a catalog image, upgraded by publishing", Ordered, catalogJourney)
	Describe("with make deploy, then kubectl", Ordered, deployJourney)
	Describe("from a release's install.yaml, upgraded by the next release's", Ordered, installerJourney)
	Describe("with the Helm chart from an OCI registry, upgraded and uninstalled", Ordered, helmJourney)
	Describe("checked by operator-sdk scorecard", scorecardJourney)
	Describe("with OLM v1: a ClusterCatalog and a ClusterExtension", Ordered, olmv1Journey)
	Describe("from a catalog mirrored for a disconnected cluster, pinned by digest", Ordered, disconnectedJourney)
})
