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

	"github.com/example/foo-operator/test/testcluster"
)

// The journeys share one cluster and its OLM, and each installs the operator's cluster-wide
// CRD: Serial runs them one at a time. Each makes its own namespaces and leaves the cluster
// as it found it, so that any one runs alone (by its label, -ginkgo.label-filter=helm) and
// in any order (-ginkgo.randomize-all). A journey that needs more of the cluster than its
// API carries the label of each capability it needs (testcluster): on a cluster without it
// (USE_EXISTING_CLUSTER=true) the suite leaves it out, and says so.
var (
	_ = Describe("with operator-sdk run bundle and run bundle-upgrade", Ordered, Serial, Label("run-bundle", "olm-v0"),
		journey(runBundleJourney))
	_ = Describe("from a catalog image, upgraded by publishing", Ordered, Serial, Label("catalog", "olm-v0"),
		journey(catalogJourney))
	_ = Describe("from a catalog image, at work on a node broken under it while its Foos' friends churn", Ordered, Serial,
		Label("olm-faults", "faults", "olm-v0"), capabilities(testcluster.AuditLog, testcluster.PodNetwork,
			testcluster.ContainerKill, testcluster.NodeRestart, testcluster.Partition), journey(olmFaultsJourney))
	_ = Describe("with make deploy, then kubectl", Ordered, Serial, Label("deploy"), journey(deployJourney))
	_ = Describe("from a release's install.yaml, upgraded by the next release's", Ordered, Serial, Label("installer"),
		journey(installerJourney))
	_ = Describe("with the Helm chart from an OCI registry, upgraded and uninstalled", Ordered, Serial, Label("helm"),
		journey(helmJourney))
	_ = Describe("with two Helm releases side by side, each watching its own namespace", Ordered, Serial, Label("helm"),
		journey(helmSideBySideJourney))
	_ = Describe("checked by operator-sdk scorecard", Serial, Label("scorecard"), journey(scorecardJourney))
	_ = Describe("with OLM v1: a ClusterCatalog and a ClusterExtension", Ordered, Serial, Label("olm-v1"),
		journey(olmv1Journey))
	_ = Describe("from a catalog mirrored for a disconnected cluster, pinned by digest", Ordered, Serial,
		Label("disconnected", "olm-v0"), capabilities(testcluster.RegistryMirror), journey(disconnectedJourney))
)

// capabilities labels a journey with the capabilities of the cluster it needs.
func capabilities(needed ...testcluster.Capability) Labels {
	labels := make(Labels, 0, len(needed))
	for _, capability := range needed {
		labels = append(labels, string(capability))
	}
	return labels
}

// journey is the body of a journey's container: its specs, and what every spec of it shows
// when it fails.
func journey(specs func()) func() {
	return func() {
		AfterEach(describePodsOnFailure)
		specs()
	}
}
