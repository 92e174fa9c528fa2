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
	"context"

	. "github.com/onsi/ginkgo/v2"
	"golang.org/x/mod/semver"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// upgrade is an upgrade of the operator a journey made, as expectKeptAcrossUpgrade checks it.
type upgrade struct {
	// operatorNamespace is where the operator runs; storyNamespace, where it played the story.
	operatorNamespace, storyNamespace string
	// version is the release upgraded to; image, the manager image the journey installed it
	// with: managerImage(version), or that image pinned by digest as `make publish` pins it.
	version, image string
	// stories are the story's Foos as they were before the upgrade.
	stories map[string]*tutorialv1.Foo
}

// leasesConfinedSince is the first release whose RBAC confines its leader election to its own
// Lease: the bundles, charts and installers of the earlier ones grant every verb on Leases.
const leasesConfinedSince = "v0.3.0"

// expectKeptAcrossUpgrade checks what every way of upgrading must keep, once the journey's
// own checks say the upgrade is done (its installer's word: a CSV, a ClusterExtension, helm):
// the operator's one pod runs the new release's image, ready; the CRD is established and the
// story's Foos are the same objects with the same specs; the operator still follows the story;
// it was never denied a request its RBAC does not grant; and, from the release that confines
// it, its leader election is confined to its own Lease.
func expectKeptAcrossUpgrade(ctx context.Context, u upgrade) {
	GinkgoHelper()
	By("checking what the upgrade to " + u.version + " kept: the operator running it, the CRD, the Foos and their story")
	expectManagerRunning(ctx, u.operatorNamespace, u.image)
	expectCRDEstablished(ctx)
	expectSameFoos(ctx, u.storyNamespace, u.stories)
	expectStillFollows(ctx, u.operatorNamespace, u.storyNamespace)
	expectNoForbidden(ctx, u.operatorNamespace)
	if semver.Compare("v"+u.version, leasesConfinedSince) >= 0 {
		expectLeasesConfined(ctx, u.operatorNamespace)
	}
}
