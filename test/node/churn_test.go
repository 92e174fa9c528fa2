//go:build node

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

package node

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/test/harness"
	"github.com/example/foo-operator/test/harness/suite"
)

// The world the fault specs break things under: Foos whose friends are pods that really
// run on the node, created and deleted all the time, a third of them taking a few seconds
// to terminate.

const (
	// slowGracePeriod is the grace period of every third friend pod, whose container ignores
	// SIGTERM: it stays terminating, its container running, that long.
	slowGracePeriod = 3
	// convergenceBound is how long, once the churn and the fault are over, every Foo may
	// take to be right again.
	convergenceBound = 90 * time.Second
	// churnAround is how long the churn runs before a fault and after it.
	churnAround = 5 * time.Second
)

// friendWorld is a namespace of Foos whose friends are pods of the node.
type friendWorld struct {
	namespace string
	friends   []string
}

// faultSizes are the numbers of Foos and of the friend pod names they share:
// NODE_FAULTS_FOOS and NODE_FAULTS_FRIENDS, 500 and 100 unless set.
func faultSizes() (foos, friends int) {
	size := func(variable string, otherwise int) int {
		value, err := strconv.Atoi(os.Getenv(variable))
		if err != nil || value <= 0 {
			return otherwise
		}
		return value
	}
	return size("NODE_FAULTS_FOOS", 500), size("NODE_FAULTS_FRIENDS", 100)
}

// newFriendWorld creates the Foos, Foo i looking for friend-(i mod friends), and runs the
// even-numbered friends, waiting until they all run.
func newFriendWorld(ctx context.Context) *friendWorld {
	GinkgoHelper()
	fooCount, friendCount := faultSizes()
	w := &friendWorld{namespace: createNamespace(ctx, "faults-", nil)}
	for i := range friendCount {
		w.friends = append(w.friends, fmt.Sprintf("friend-%d", i))
	}
	group, groupCtx := errgroup.WithContext(ctx)
	group.SetLimit(8)
	for i := range fooCount {
		group.Go(func() error {
			return k8sClient.Create(groupCtx, harness.NewFoo(w.namespace, fmt.Sprintf("foo-%04d", i), w.friends[i%friendCount]))
		})
	}
	for i := 0; i < friendCount; i += 2 {
		group.Go(func() error { return k8sClient.Create(groupCtx, w.friendPod(i)) })
	}
	Expect(group.Wait()).To(Succeed())

	var pods corev1.PodList
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.List(ctx, &pods, client.InNamespace(w.namespace))).To(Succeed())
		g.Expect(pods.Items).To(HaveEach(HaveField("Status.Phase", corev1.PodRunning)))
	}).WithContext(ctx).WithTimeout(5*time.Minute).WithPolling(time.Second).Should(Succeed(),
		func() string { return "every friend pod running; they are: " + podPhases(pods.Items) })
	return w
}

// friendPod is the pod of friend i: the pause image, or, for every third friend, a
// container that ignores SIGTERM and so runs out its grace period of slowGracePeriod.
func (w *friendWorld) friendPod(i int) *corev1.Pod {
	if i%3 != 0 {
		return restrictedPod(w.namespace, w.friends[i], cluster.Image("pause"))
	}
	pod := restrictedPod(w.namespace, w.friends[i], cluster.Image("busybox"), "sh", "-c", `trap "" TERM; while true; do sleep 1; done`)
	pod.Spec.TerminationGracePeriodSeconds = ptr.To[int64](slowGracePeriod)
	return pod
}

// podPhases counts pods by phase, terminating ones apart.
func podPhases(pods []corev1.Pod) string {
	counts := map[string]int{}
	for _, pod := range pods {
		phase := string(pod.Status.Phase)
		if pod.DeletionTimestamp != nil {
			phase = "Terminating"
		}
		counts[phase]++
	}
	return fmt.Sprint(counts)
}

// wrongFoos lists the Foos whose status is wrong now.
func (w *friendWorld) wrongFoos(ctx context.Context) ([]string, error) {
	return harness.WrongStatuses(ctx, k8sClient, w.namespace)
}

// startChurn creates and deletes friend pods from two workers, every 250ms each, deleting
// with each pod's own grace period, until stopped.
func (w *friendWorld) startChurn(ctx context.Context) *suite.Churn {
	return suite.StartChurn(ctx, k8sClient, 250*time.Millisecond, func() *corev1.Pod {
		return w.friendPod(rand.IntN(len(w.friends)))
	})
}

// wrongOverTime counts the wrong Foos once a second until stopped: the figure a fault is
// judged by besides the end state.
type wrongOverTime struct {
	cancel context.CancelFunc
	done   chan struct{}
	// counts holds one count a second; -1 when the apiserver did not answer.
	counts []int
}

func (w *friendWorld) startCounting(ctx context.Context) *wrongOverTime {
	ctx, cancel := context.WithCancel(ctx)
	o := &wrongOverTime{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(o.done)
		ticker := time.NewTicker(time.Second)
		defer ticker.Stop()
		for {
			wrong, err := w.wrongFoos(ctx)
			count := len(wrong)
			if err != nil {
				count = -1
			}
			if ctx.Err() != nil {
				return
			}
			o.counts = append(o.counts, count)
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
	DeferCleanup(o.stop)
	return o
}

// stop ends the counting and returns the peak count.
func (o *wrongOverTime) stop() int {
	o.cancel()
	<-o.done
	peak := 0
	for _, count := range o.counts {
		peak = max(peak, count)
	}
	return peak
}

// String shows the counts, one a second, "?" where the apiserver did not answer.
func (o *wrongOverTime) String() string {
	shown := make([]string, len(o.counts))
	for i, count := range o.counts {
		shown[i] = strconv.Itoa(count)
		if count < 0 {
			shown[i] = "?"
		}
	}
	return strings.Join(shown, " ")
}

// faultFigures is what a fault spec measured, one row of docs/reliability.md's table.
type faultFigures struct {
	Fault    string
	Injected string
	// Changes is how many friend pods the churn created or deleted around the fault.
	Changes int
	// PeakWrong is the most Foos wrong at once, from the churn's start to zero wrong.
	PeakWrong int
	// ToZero is the time from the end of the churn and the fault to zero wrong Foos.
	ToZero time.Duration
	// Restarts counts the restarts of the operator's containers.
	Restarts int32
	// Takeover is the time from the fault to a new holder of the leader Lease, if it moved.
	Takeover time.Duration
	// WrongOverTime is the count of wrong Foos each second.
	WrongOverTime string
}

// measured collects every fault spec's figures for the report at the end of the suite.
var measured []faultFigures

// underChurn runs inject while the friend pods churn, with churnAround of churn before and
// after it, then stops the churn and expects every Foo right within convergenceBound. It
// returns the figures, which inject may complete (Takeover), and reports them.
func (w *friendWorld) underChurn(ctx context.Context, fault, injected string, inject func(ctx context.Context, figures *faultFigures)) faultFigures {
	GinkgoHelper()
	w.expectAllRight(ctx, "before the fault")
	restartsBefore := operatorRestarts(ctx)
	counting := w.startCounting(ctx)
	churning := w.startChurn(ctx)
	time.Sleep(churnAround) // work in flight when the fault comes

	figures := faultFigures{Fault: fault, Injected: injected}
	inject(ctx, &figures)

	time.Sleep(churnAround) // churn on against whatever came back
	figures.Changes = churning.Stop()
	figures.ToZero = w.expectAllRight(ctx, "after the fault")
	figures.PeakWrong = counting.stop()
	figures.WrongOverTime = counting.String()
	figures.Restarts = operatorRestarts(ctx) - restartsBefore
	measured = append(measured, figures)
	AddReportEntry(fault, fmt.Sprintf("%d pod changes; wrong Foos at peak %d, zero %s after the churn and the fault ended; "+
		"%d restarts; leader takeover %s\nwrong Foos each second: %s",
		figures.Changes, figures.PeakWrong, figures.ToZero.Round(100*time.Millisecond), figures.Restarts,
		figures.Takeover.Round(100*time.Millisecond), figures.WrongOverTime), ReportEntryVisibilityAlways)
	return figures
}

// expectAllRight waits, at most convergenceBound, until every Foo's status is right, and
// returns how long that took.
func (w *friendWorld) expectAllRight(ctx context.Context, when string) time.Duration {
	GinkgoHelper()
	start := time.Now()
	Eventually(func(g Gomega) string {
		wrong, err := w.wrongFoos(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		return harness.Summary(wrong)
	}).WithContext(ctx).WithTimeout(convergenceBound).WithPolling(500*time.Millisecond).Should(BeEmpty(),
		"every Foo right %s; the Foos still wrong", when)
	return time.Since(start)
}

// operatorRestarts is the sum of the restart counts of the operator's containers.
func operatorRestarts(ctx context.Context) int32 {
	GinkgoHelper()
	pods, err := operatorPods(ctx)
	Expect(err).NotTo(HaveOccurred())
	var restarts int32
	for _, pod := range pods {
		for _, status := range pod.Status.ContainerStatuses {
			restarts += status.RestartCount
		}
	}
	return restarts
}

// leaderPod is the operator's pod that holds the leader Lease, and the holder's identity.
func leaderPod(ctx context.Context) (*corev1.Pod, string) {
	GinkgoHelper()
	var holder string
	var leader *corev1.Pod
	Eventually(func(g Gomega) {
		var err error
		holder, err = leaseHolder(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		pods, err := operatorPods(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		leader = nil
		for i := range pods {
			if strings.HasPrefix(holder, pods[i].Name+"_") {
				leader = &pods[i]
			}
		}
		g.Expect(leader).NotTo(BeNil(), "no pod of the operator holds the Lease, held by %q", holder)
	}).WithContext(ctx).Should(Succeed(), "the operator's pod that holds the leader Lease")
	return leader, holder
}

// awaitTakeover waits until someone other than holder holds the leader Lease, and returns
// how long that took from since.
func awaitTakeover(ctx context.Context, holder string, since time.Time) time.Duration {
	GinkgoHelper()
	var last string
	Eventually(func() (string, error) {
		var err error
		last, err = leaseHolder(ctx)
		return last, err
	}).WithContext(ctx).WithPolling(100*time.Millisecond).ShouldNot(Or(BeEmpty(), Equal(holder)),
		func() string {
			return fmt.Sprintf("a new holder of the leader Lease, held by %q; it is held by %q", holder, last)
		})
	return time.Since(since)
}
