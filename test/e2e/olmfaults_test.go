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
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"

	"github.com/example/foo-operator/test/harness/suite"
)

// The upgrade under churn's world: as many Foos and friends as the node's fault suite has
// (E2E_CHURN_FOOS and E2E_CHURN_FRIENDS, the full world's unless set), churned at a pace the
// node keeps up with while it also starts OLM's pods (the catalog's at each poll, the
// bundle's unpack Job, the new manager): at the node suite's 4 to 6 changes a second, the
// kubelet fell minutes behind, and the upgrade with it.
const (
	upgradeChurnNamespace = "upgrade-churn"
	upgradeChurnInterval  = time.Second
)

// olmFaultsJourney is the operator as OLM v0 installs it from a catalog, at work, on a node
// the suite breaks under it: who writes the Foos' statuses (the apiserver's audit log), the
// upgrade to 0.3.0 while the friends of a world of Foos churn, the node's faults in that
// world, then the manager sized through the Subscription (its metrics, read at the pod's
// address). It needs the local cluster: its container carries every capability's label.
func olmFaultsJourney() {
	var (
		catalog *catalogInstall
		// world is the Foos and friend pods the upgrade to 0.3.0 churns, which the node's
		// faults then break things under.
		world *suite.FriendWorld
	)

	BeforeAll(func(ctx context.Context) {
		catalog = newCatalogInstall(ctx, "faults-story", "catalog-faults:latest", "foo-operator-catalog-faults")
	})

	It("installs 0.2.0 from the catalog image, and the statuses of its Foos are written by the CSV's ServiceAccount alone",
		func(ctx context.Context) {
			catalog.install(ctx, "0.2.0")
			By("reading, in the apiserver's audit log, who wrote the statuses")
			Expect(statusWriters(catalog.storyNamespace, "foo-01")).To(ConsistOf(
				serviceaccount.MakeUsername(catalog.operatorNamespace, operatorServiceAccount)))
		}, SpecTimeout(10*time.Minute))

	// The upgrade to 0.3.0 and the node's faults after it meet the operator at work: in a
	// world of Foos whose friend pods churn, which lives until both are done.
	Describe("in a world of Foos whose friends churn", Ordered, func() {
		BeforeAll(func(ctx context.Context) {
			createNamespaces(ctx, newNamespace(upgradeChurnNamespace, nil))
			foos, friends := suite.WorldSizes("E2E_CHURN_FOOS", "E2E_CHURN_FRIENDS")
			By(fmt.Sprintf("creating %d Foos looking for %d friend pods, half of them running", foos, friends))
			world = suite.NewFriendWorld(ctx, suite.FriendWorldOptions{
				Client: k8sClient, Namespace: upgradeChurnNamespace, Foos: foos, Friends: friends,
				PauseImage: cluster.Image("pause"), BusyboxImage: cluster.Image("busybox"),
				OperatorRestarts: func(ctx context.Context) int32 { return installedOperator(catalog.operatorNamespace).Restarts(ctx) },
				ChurnInterval:    upgradeChurnInterval,
			})
		})

		It("upgrades to 0.3.0 while the friends of its Foos churn: the two releases' managers overlap, "+
			"neither is denied a request once OLM's bindings for 0.3.0 exist, and every Foo is right within 90s", func(ctx context.Context) {
			const previous, version = "0.2.0", "0.3.0"
			recorded := recordHandover(ctx, catalog.operatorNamespace, csvName(version), upgradeChurnNamespace)
			injected := fmt.Sprintf("%s published in the catalog image the CatalogSource polls, replacing %s", version, previous)
			figures := world.UnderChurn(ctx, "OLM upgrade", injected,
				func(ctx context.Context, _ *suite.FaultFigures) {
					catalog.upgradeByPublishing(ctx, previous, version)
					expectManagerRunning(ctx, catalog.operatorNamespace, managerImage(version))
				})
			measuredFaults = append(measuredFaults, figures)
			recorded.stop()

			Expect(recorded.overlapped(managerImage(previous), managerImage(version))).To(BeTrue(),
				"a manager of %s and one of %s running at once, as the Deployment's rolling update makes them; the manager pods seen: %s",
				previous, version, recorded.podsSeen())
			complete, bindings := recorded.bindingsComplete()
			Expect(bindings).NotTo(BeEmpty(), "the bindings OLM made for %s", csvName(version))
			// The bindings take effect when the apiserver's authorizer has them in its cache, a
			// moment after they exist: denials are judged from then, which the apiserver itself
			// tells (SubjectAccessReviews every 250ms), not from a grace window.
			authorized, ok := recorded.authorizedFrom(complete)
			Expect(ok).To(BeTrue(), "the apiserver allowing the operator's ServiceAccount every request the manager makes, "+
				"once OLM's bindings for %s all existed (%s)", version, complete.Format(time.StampMilli))
			// A denial is stamped when the node read the manager's log line: after the apiserver
			// decided, the manager got the answer and logged it, which took up to 91 ms at the
			// full size (500 Foos). One stamped within a look (250 ms) of the first allowed look
			// cannot be told from one decided just before it, and counts with OLM's lag.
			decidedBy := authorized.Add(handoverPollInterval)
			var lag, late []string
			atTheEdge := 0
			denials, problems := recorded.denials()
			Expect(problems).To(BeEmpty(), "the managers' logs, which must have been read whole to tell that no request was denied")
			for _, d := range denials {
				if d.at.After(decidedBy) {
					late = append(late, d.at.Format(time.StampMilli)+" "+d.pod+": "+d.line)
					continue
				}
				if d.at.After(authorized) {
					atTheEdge++
				}
				lag = append(lag, fmt.Sprintf("%s %s: %s %s/%s in %q", d.at.Format(time.StampMilli), d.pod, d.verb, d.group, d.resource, d.namespace))
			}
			AddReportEntry("OLM's RBAC handover from "+previous+" to "+version, fmt.Sprintf(
				"the bindings for %s complete at %s: %s\nthe apiserver authorized the manager's requests from %s (%s after)\n"+
					"the manager pods: %s\n%d denials before it, or stamped less than %s after it (%d of them): %v",
				version, complete.Format(time.StampMilli), strings.Join(bindings, ", "), authorized.Format(time.StampMilli),
				authorized.Sub(complete).Round(time.Millisecond), recorded.podsSeen(), len(lag), handoverPollInterval, atTheEdge, lag),
				ReportEntryVisibilityAlways)
			Expect(late).To(BeEmpty(), "requests denied to the managers after the apiserver authorized them, "+
				"once OLM's bindings for %s all existed (%s, and a look later)", version, authorized.Format(time.StampMilli))
			catalog.restartOnItsOwnRBAC(ctx, previous, version)
			expectKeptAcrossUpgrade(ctx, catalog.upgradedTo(version))
		}, SpecTimeout(15*time.Minute))

		// Users run the operator as OLM installed it, on nodes that fail under it: the node
		// suite's faults, on 0.3.0 from the catalog, in the world the upgrade churned. Under OLM
		// v0 the Deployment is the CSV's (OLM writes the CSV's spec over it whenever it applies
		// the CSV again), so a user scales it in the CSV; and OLM watches it through every fault.
		Describe("then, with two replicas, keeps its Foos right while its node is broken under it and the friends churn",
			Ordered, func() {
				const version = "0.3.0"
				faults := &suite.NodeFaults{Replicas: 2, Measured: &measuredFaults}
				// The catalog page's namespace, which catalog holds once the journey runs.
				operator := &suite.InstalledOperator{Namespace: packageName}

				BeforeAll(func(ctx context.Context) {
					operator.Client, operator.Clientset, operator.LogDir = k8sClient, clientset, keptLogDir()
					faults.Cluster, faults.Operator, faults.World = cluster, operator, world
					// OLM may mark the CSV Failed while a fault leaves its Deployment short of
					// replicas; it must come back to Succeeded, with nothing reinstalled by hand.
					faults.Healthy = func(ctx context.Context) {
						csv := expectCSVSucceeded(ctx, catalog.operatorNamespace, csvName(version))
						AddReportEntry("What OLM made of the fault: the phases of the CSV since the spec began",
							csvPhasesSince(csv, CurrentSpecReport().StartTime), ReportEntryVisibilityAlways)
					}
					By(fmt.Sprintf("setting %d replicas in the CSV of %s", faults.Replicas, version))
					setCSVReplicas(ctx, catalog.operatorNamespace, csvName(version), faults.Replicas)
					operator.ExpectRolledOut(ctx, faults.Replicas, "with the replicas of its CSV")
					DeferCleanup(func(ctx context.Context) {
						setCSVReplicas(ctx, catalog.operatorNamespace, csvName(version), 1)
						operator.ExpectRolledOut(ctx, 1, "with the one replica of its CSV again")
						expectCSVSucceeded(ctx, catalog.operatorNamespace, csvName(version))
					})
				})
				AfterEach(operator.LogsOnFailure)
				AfterAll(operator.SaveLogs)

				suite.NodeFaultSpecs(faults)
			})
	})

	// On 0.3.0, which passes its memory limit to the Go runtime (0.2.0 does not).
	It("is sized through the Subscription: the manager's pod gets the new limits, and the Go runtime's memory limit follows", func(ctx context.Context) {
		expectSizedBySubscription(ctx, catalog.operatorNamespace, packageName, "384Mi")
		expectStillFollows(ctx, catalog.operatorNamespace, catalog.storyNamespace)
	}, SpecTimeout(10*time.Minute))

	It("uninstalls: the operator and what OLM made for it go, the CRD and the Foos stay", func(ctx context.Context) {
		uninstall(ctx, catalog.operatorNamespace, csvName("0.3.0"))
		expectSameFoos(ctx, catalog.storyNamespace, catalog.stories)
		deleteCRD(ctx)
	}, SpecTimeout(10*time.Minute))
}
