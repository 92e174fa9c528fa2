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

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/test/harness"
)

// The world faults are judged in, on a cluster with a node: Foos whose friends are pods that
// really run, created and deleted all the time, a third of them taking a few seconds to
// terminate. The node's fault suite and the OLM suite's upgrade under churn share it.

const (
	// slowGracePeriod is the grace period of every third friend pod, whose container ignores
	// SIGTERM: it stays terminating, its container running, that long.
	slowGracePeriod = 3
	// ConvergenceBound is how long, once the churn and the fault are over, every Foo may
	// take to be right again.
	ConvergenceBound = 90 * time.Second
	// churnAround is how long the churn runs before a fault and after it.
	churnAround = 5 * time.Second
)

// The full size of a world, as the reliability issue set it: 500 Foos naming 100 friend pods.
// CI runs smaller worlds (the same five Foos per friend), to keep its time.
const (
	FullWorldFoos    = 500
	FullWorldFriends = 100
)

// WorldSizes returns the numbers of Foos and of friends that the environment variables
// foosVariable and friendsVariable set, FullWorldFoos and FullWorldFriends for either unset.
func WorldSizes(foosVariable, friendsVariable string) (foos, friends int) {
	size := func(variable string, otherwise int) int {
		value, err := strconv.Atoi(os.Getenv(variable))
		if err != nil || value <= 0 {
			return otherwise
		}
		return value
	}
	return size(foosVariable, FullWorldFoos), size(friendsVariable, FullWorldFriends)
}

// FriendWorld is a namespace of Foos whose friends are pods of the node.
type FriendWorld struct {
	Namespace string
	friends   []string
	options   FriendWorldOptions
}

// FriendWorldOptions are what a FriendWorld is made of.
type FriendWorldOptions struct {
	Client client.Client
	// Namespace is where the Foos and the friend pods are made; it exists.
	Namespace string
	// Foos and Friends are how many Foos there are, and how many friend names they share.
	Foos, Friends int
	// PauseImage and BusyboxImage name the images the node pulls for the friend pods.
	PauseImage, BusyboxImage string
	// OperatorRestarts sums the restart counts of the operator's containers, for the figures.
	OperatorRestarts func(ctx context.Context) int32
	// ChurnInterval is how long each of the two churn workers waits between two pod changes;
	// 250ms unless set. The node starts pods one after the other: a fault that needs new
	// pods of its own started (an upgrade's) needs a churn the node keeps up with.
	ChurnInterval time.Duration
}

// NewFriendWorld creates the Foos, Foo i looking for friend-(i mod Friends), and runs the
// even-numbered friends, waiting until they all run.
func NewFriendWorld(ctx context.Context, options FriendWorldOptions) *FriendWorld {
	GinkgoHelper()
	w := &FriendWorld{Namespace: options.Namespace, options: options}
	for i := range options.Friends {
		w.friends = append(w.friends, fmt.Sprintf("friend-%d", i))
	}
	c := options.Client
	group, groupCtx := errgroup.WithContext(ctx)
	group.SetLimit(8)
	for i := range options.Foos {
		group.Go(func() error {
			return c.Create(groupCtx, harness.NewFoo(w.Namespace, fmt.Sprintf("foo-%04d", i), w.friends[i%options.Friends]))
		})
	}
	for i := 0; i < options.Friends; i += 2 {
		group.Go(func() error { return c.Create(groupCtx, w.friendPod(i)) })
	}
	Expect(group.Wait()).To(Succeed())

	var pods corev1.PodList
	Eventually(func(g Gomega) {
		g.Expect(c.List(ctx, &pods, client.InNamespace(w.Namespace))).To(Succeed())
		g.Expect(pods.Items).To(HaveEach(HaveField("Status.Phase", corev1.PodRunning)))
	}).WithContext(ctx).WithTimeout(5*time.Minute).WithPolling(time.Second).Should(Succeed(),
		func() string { return "every friend pod running; they are: " + podPhases(pods.Items) })
	return w
}

// friendPod is the pod of friend i: the pause image, or, for every third friend, a
// container that ignores SIGTERM and so runs out its grace period of slowGracePeriod.
func (w *FriendWorld) friendPod(i int) *corev1.Pod {
	if i%3 != 0 {
		return harness.RestrictedPod(w.Namespace, w.friends[i], w.options.PauseImage)
	}
	pod := harness.RestrictedPod(w.Namespace, w.friends[i], w.options.BusyboxImage, "sh", "-c", `trap "" TERM; while true; do sleep 1; done`)
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
func (w *FriendWorld) wrongFoos(ctx context.Context) ([]string, error) {
	return harness.WrongStatuses(ctx, w.options.Client, w.Namespace)
}

// startChurn creates and deletes friend pods from two workers, every ChurnInterval each,
// deleting with each pod's own grace period, until stopped.
func (w *FriendWorld) startChurn(ctx context.Context) *Churn {
	interval := w.options.ChurnInterval
	if interval == 0 {
		interval = 250 * time.Millisecond
	}
	return StartChurn(ctx, w.options.Client, interval, func() *corev1.Pod {
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

func (w *FriendWorld) startCounting(ctx context.Context) *wrongOverTime {
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
	DeferCleanup(func() { _, _ = o.stop() })
	return o
}

// stop ends the counting and returns the peak count among the seconds the apiserver
// answered, and how many seconds it did not: the peak is then only a lower bound.
func (o *wrongOverTime) stop() (peak, unanswered int) {
	o.cancel()
	<-o.done
	for _, count := range o.counts {
		if count < 0 {
			unanswered++
		}
		peak = max(peak, count)
	}
	return peak, unanswered
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

// FaultFigures is what a fault spec measured, one row of docs/reliability.md's table.
type FaultFigures struct {
	Fault    string
	Injected string
	// Changes is how many friend pods the churn created or deleted around the fault.
	Changes int
	// PeakWrong is the most Foos wrong at once, from the churn's start to zero wrong, among
	// the seconds the apiserver answered; Unanswered counts those it did not (an outage), in
	// which as many as all could have been wrong: with Unanswered, PeakWrong is a lower bound.
	PeakWrong  int
	Unanswered int
	// ToZero is the time from the end of the churn and the fault to zero wrong Foos.
	ToZero time.Duration
	// Restarts counts the restarts of the operator's containers.
	Restarts int32
	// Takeover is the time from the fault to a new holder of the leader Lease, if it moved.
	Takeover time.Duration
	// WrongOverTime is the count of wrong Foos each second.
	WrongOverTime string
}

// UnderChurn runs inject while the friend pods churn, with a few seconds of churn before and
// after it, then stops the churn and expects every Foo right within ConvergenceBound. It
// returns the figures, which inject may complete (Takeover), and reports them.
func (w *FriendWorld) UnderChurn(ctx context.Context, fault, injected string, inject func(ctx context.Context, figures *FaultFigures)) FaultFigures {
	GinkgoHelper()
	// A world that is gone (its namespace deleted) has no wrong Foo either: it must be whole.
	w.expectWhole(ctx)
	w.ExpectAllRight(ctx, "before the fault")
	restartsBefore := w.options.OperatorRestarts(ctx)
	counting := w.startCounting(ctx)
	churning := w.startChurn(ctx)
	time.Sleep(churnAround) // work in flight when the fault comes

	figures := FaultFigures{Fault: fault, Injected: injected}
	inject(ctx, &figures)

	time.Sleep(churnAround) // churn on against whatever came back
	figures.Changes = churning.Stop()
	Expect(figures.Changes).To(BeNumerically(">", 0), "friend pods the churn created or deleted around the fault")
	figures.ToZero = w.ExpectAllRight(ctx, "after the fault")
	// Right statuses of a world that lost Foos would hide the loss: it must still be whole.
	w.expectWhole(ctx)
	figures.PeakWrong, figures.Unanswered = counting.stop()
	figures.WrongOverTime = counting.String()
	figures.Restarts = w.options.OperatorRestarts(ctx) - restartsBefore
	AddReportEntry(fault, fmt.Sprintf("%d pod changes; wrong Foos at peak %s, zero %s after the churn and the fault ended; "+
		"%d restarts; leader takeover %s\nwrong Foos each second (? unanswered): %s",
		figures.Changes, figures.peak(), figures.ToZero.Round(100*time.Millisecond), figures.Restarts,
		figures.Takeover.Round(100*time.Millisecond), figures.WrongOverTime), ReportEntryVisibilityAlways)
	return figures
}

// peak tells the peak of wrong Foos: a lower bound when the apiserver did not answer for a
// while, saying how long.
func (f FaultFigures) peak() string {
	if f.Unanswered > 0 {
		return fmt.Sprintf("at least %d (%d s unanswered)", f.PeakWrong, f.Unanswered)
	}
	return strconv.Itoa(f.PeakWrong)
}

// expectWhole expects every Foo of the world to exist.
func (w *FriendWorld) expectWhole(ctx context.Context) {
	GinkgoHelper()
	var foos tutorialv1.FooList
	Expect(w.options.Client.List(ctx, &foos, client.InNamespace(w.Namespace))).To(Succeed())
	Expect(foos.Items).To(HaveLen(w.options.Foos), "the Foos of the world in %s", w.Namespace)
}

// ExpectAllRight waits, at most ConvergenceBound, until every Foo's status is right, and
// returns how long that took.
func (w *FriendWorld) ExpectAllRight(ctx context.Context, when string) time.Duration {
	GinkgoHelper()
	start := time.Now()
	Eventually(func(g Gomega) string {
		wrong, err := w.wrongFoos(ctx)
		g.Expect(err).NotTo(HaveOccurred())
		return harness.Summary(wrong)
	}).WithContext(ctx).WithTimeout(ConvergenceBound).WithPolling(500*time.Millisecond).Should(BeEmpty(),
		"every Foo right %s; the Foos still wrong", when)
	return time.Since(start)
}

// FaultTable is the figures of faults as a Markdown table, the one docs/reliability.md shows.
func FaultTable(figures []FaultFigures) string {
	var table strings.Builder
	// A peak counted while the apiserver did not answer is a lower bound, and says so.
	table.WriteString("| fault | how injected | pod changes | wrong Foos at peak | time to zero wrong | restarts | leader takeover |\n")
	table.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, f := range figures {
		takeover := "-"
		if f.Takeover > 0 {
			takeover = f.Takeover.Round(100 * time.Millisecond).String()
		}
		fmt.Fprintf(&table, "| %s | %s | %d | %s | %s | %d | %s |\n", f.Fault, f.Injected, f.Changes, f.peak(),
			f.ToZero.Round(100*time.Millisecond), f.Restarts, takeover)
	}
	return table.String()
}
