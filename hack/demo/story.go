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

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
	"github.com/example/foo-operator/controllers"
)

// waitTimeout bounds every wait for the operator to react; it reacts in well under a second.
const waitTimeout = "30s"

// step is one turn of the story: commands a user would type, ending with what they show of
// the Foos, the Events the operator must emit in answer, and a note on what to look at.
type step struct {
	title    string
	commands [][]string
	// wantEvents lists, per Foo, the reasons of which one new Event must appear.
	wantEvents map[string][]string
	note       string
}

var unhappyReasons = []string{tutorialv1.FriendNotFoundReason, tutorialv1.FriendTerminatingReason}

// story is the operator's story, told with kubectl in the default namespace. Each step
// ends with a `kubectl wait` on the Happy condition, so it moves on as soon as the
// operator has written the new status.
var story = []step{
	{
		title: "Apply the samples: foo-01 looks for a pod named jack, foo-02 for one named joe",
		commands: [][]string{
			{"apply", "-k", "config/samples"},
			{"wait", "--for=condition=Happy=false", "--timeout=" + waitTimeout, "foo/foo-01", "foo/foo-02"},
			{"get", "foos"},
		},
		note: "No Events yet: a new Foo without a friend starts unhappy, which is no change of mood.",
	},
	{
		title: "Create pod jack: foo-01 becomes happy, foo-02 still waits for joe",
		commands: [][]string{
			{"run", "jack", "--image=registry.k8s.io/pause:3.10"},
			{"wait", "--for=condition=Happy=true", "--timeout=" + waitTimeout, "foo/foo-01"},
			{"wait", "--for=condition=Happy=false", "--timeout=" + waitTimeout, "foo/foo-02"},
			{"get", "foos"},
		},
		wantEvents: map[string][]string{"foo-01": {tutorialv1.FriendFoundReason}},
		note:       "This control plane has no nodes, so jack stays Pending; that it exists is all a Foo needs.",
	},
	{
		title: "Point foo-02 at jack: foo-02 becomes happy too",
		commands: [][]string{
			{"patch", "foo", "foo-02", "--type=merge", "-p", `{"spec":{"name":"jack"}}`},
			{"wait", "--for=condition=Happy=true", "--timeout=" + waitTimeout, "foo/foo-02"},
			{"get", "foos"},
		},
		wantEvents: map[string][]string{"foo-02": {tutorialv1.FriendFoundReason}},
	},
	{
		title: "Delete jack: both Foos lose their friend",
		commands: [][]string{
			{"delete", "pod", "jack"},
			{"wait", "--for=condition=Happy=false", "--timeout=" + waitTimeout, "foo/foo-01", "foo/foo-02"},
			{"get", "foos"},
		},
		wantEvents: map[string][]string{"foo-01": unhappyReasons, "foo-02": unhappyReasons},
	},
	{
		title: "Ask foo-01 what happened: its Happy condition and its Events",
		commands: [][]string{
			{"describe", "foo", "foo-01"},
		},
	},
}

// tellStory plays the story against c, printing each command and its output, then the
// Events the operator emitted during the step.
func tellStory(ctx context.Context, c *localCluster, w io.Writer) error {
	reader, err := client.New(c.config, client.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		return err
	}
	shown := sets.New[string]()

	for i, s := range story {
		_, _ = fmt.Fprintf(w, "\n--- Step %d of %d: %s\n", i+1, len(story), s.title)
		for _, args := range s.commands {
			_, _ = fmt.Fprintf(w, "$ kubectl %s\n", shellJoin(args))
			output, err := c.kubectl.run(ctx, args...)
			if err != nil {
				return err
			}
			_, _ = io.WriteString(w, output)
		}

		events, err := awaitEvents(ctx, reader, s.wantEvents, shown)
		if err != nil {
			return err
		}
		printEvents(w, events)
		if s.note != "" {
			_, _ = fmt.Fprintf(w, "(%s)\n", s.note)
		}
	}
	return nil
}

// awaitEvents waits until the operator has emitted, for each Foo in want, an Event with one
// of the wanted reasons that was not shown before, and returns every Event not shown yet.
// The recorder writes Events asynchronously, so they may trail the status by a moment.
func awaitEvents(ctx context.Context, reader client.Reader, want map[string][]string, shown sets.Set[string]) ([]corev1.Event, error) {
	var fresh []corev1.Event
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		var events corev1.EventList
		if err := reader.List(ctx, &events, client.InNamespace("default")); err != nil {
			return false, err
		}
		fresh = fresh[:0]
		for _, event := range events.Items {
			if event.Source.Component == controllers.ControllerName && !shown.Has(string(event.UID)) {
				fresh = append(fresh, event)
			}
		}
		for foo, reasons := range want {
			if !slices.ContainsFunc(fresh, func(e corev1.Event) bool {
				return e.InvolvedObject.Name == foo && slices.Contains(reasons, e.Reason)
			}) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for the operator's Events %v: %w", want, err)
	}
	sort.SliceStable(fresh, func(i, j int) bool { return fresh[i].FirstTimestamp.Before(&fresh[j].FirstTimestamp) })
	for _, event := range fresh {
		shown.Insert(string(event.UID))
	}
	return fresh, nil
}

func printEvents(w io.Writer, events []corev1.Event) {
	if len(events) == 0 {
		return
	}
	_, _ = fmt.Fprintf(w, "Events from %s:\n", controllers.ControllerName)
	table := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	_, _ = fmt.Fprintln(table, "  OBJECT\tTYPE\tREASON\tMESSAGE")
	for _, event := range events {
		_, _ = fmt.Fprintf(table, "  %s/%s\t%s\t%s\t%s\n",
			strings.ToLower(event.InvolvedObject.Kind), event.InvolvedObject.Name, event.Type, event.Reason, event.Message)
	}
	_ = table.Flush()
}

// printFooMetrics prints the operator's own series from the manager's metrics endpoint.
func printFooMetrics(ctx context.Context, c *localCluster, w io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.metricsURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("reading the manager's metrics: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()

	_, _ = fmt.Fprintf(w, "\n--- The operator's metrics\n$ curl -s %s | grep ^foo_operator_\n", c.metricsURL)
	scanner := bufio.NewScanner(resp.Body)
	for scanner.Scan() {
		if line := scanner.Text(); strings.HasPrefix(line, "foo_operator_") {
			_, _ = fmt.Fprintln(w, line)
		}
	}
	return scanner.Err()
}

// shellJoin renders args as a user would type them in a POSIX shell.
func shellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, arg := range args {
		if strings.ContainsAny(arg, ` "{}'$*?`) {
			arg = "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'"
		}
		quoted[i] = arg
	}
	return strings.Join(quoted, " ")
}
