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
	"runtime"
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
	"github.com/example/foo-operator/internal/controller"
)

// waitTimeout bounds every wait for the operator to react; it reacts in well under a second.
const waitTimeout = "30s"

// step is one turn of the story: commands a user would type (kubectl, or make), ending with
// what they show of the Foos, the Events the operator must emit in answer, and a note on
// what to look at.
type step struct {
	title    string
	commands [][]string
	// happy and unhappy name the Foos that the step's commands turn (or leave) happy and
	// unhappy: where it names any, the step ends by waiting for their Happy condition and
	// showing the Foos.
	happy, unhappy []string
	// wantEvents lists, per Foo, the reasons of which one new Event must appear.
	wantEvents map[string][]string
	note       string
}

// allCommands are the step's commands, then, where it names Foos happy or unhappy, a
// `kubectl wait` for their Happy condition and `kubectl get foos`.
func (s step) allCommands() [][]string {
	if len(s.happy) == 0 && len(s.unhappy) == 0 {
		return s.commands
	}
	commands := slices.Clone(s.commands)
	if len(s.happy) > 0 {
		commands = append(commands, untilHappy(true, s.happy))
	}
	if len(s.unhappy) > 0 {
		commands = append(commands, untilHappy(false, s.unhappy))
	}
	return append(commands, kubectlCommand("get", "foos"))
}

// untilHappy is the `kubectl wait` until each of foos shows the Happy condition happy.
func untilHappy(happy bool, foos []string) []string {
	args := make([]string, 0, 3+len(foos))
	args = append(args, "wait", fmt.Sprintf("--for=condition=Happy=%t", happy), "--timeout="+waitTimeout)
	for _, foo := range foos {
		args = append(args, "foo/"+foo)
	}
	return kubectlCommand(args...)
}

var unhappyReasons = []string{tutorialv1.FriendNotFoundReason, tutorialv1.FriendTerminatingReason}

// kubectlCommand is a kubectl command of the story.
func kubectlCommand(args ...string) []string { return append([]string{"kubectl"}, args...) }

// story is the operator's story on c, told with kubectl in the default namespace. Each step
// ends with a `kubectl wait` on the Happy condition, so it moves on as soon as the operator
// has written the new status. On a node it starts by deploying the operator as a user
// would, and ends by showing the pods that ran.
func story(c *demoCluster) []step {
	var steps []step
	if c.onNode {
		image := c.operatorImage()
		steps = append(steps, step{
			title: "Build the operator's image, push it to the cluster's registry and deploy it",
			commands: [][]string{
				{"make", "docker-build", "docker-push", "deploy", "IMG=" + image, "CONTAINER_TOOL=imagebuilder", "PLATFORMS=linux/" + runtime.GOARCH},
				kubectlCommand("-n", operatorNamespace, "rollout", "status", "deployment/"+operatorDeployment, "--timeout=2m"),
				kubectlCommand("get", "pods", "-A"),
			},
			note: "The manager runs as a pod on the node, from " + image + ", under the restricted Pod Security level.",
		})
	}
	jackNote := "This control plane has no nodes, so jack stays Pending; that it exists is all a Foo needs."
	if c.onNode {
		jackNote = "jack runs on the node: kubectl get pod jack -o wide shows its address."
	}
	steps = append(steps,
		step{
			title:    "Apply the samples: foo-01 looks for a pod named jack, foo-02 for one named joe",
			commands: [][]string{kubectlCommand("apply", "-k", "config/samples")},
			unhappy:  []string{"foo-01", "foo-02"},
			note:     "No Events yet: a new Foo without a friend starts unhappy, which is no change of mood.",
		},
		step{
			title:      "Create pod jack: foo-01 becomes happy, foo-02 still waits for joe",
			commands:   [][]string{kubectlCommand("run", "jack", "--image="+c.jackImage)},
			happy:      []string{"foo-01"},
			unhappy:    []string{"foo-02"},
			wantEvents: map[string][]string{"foo-01": {tutorialv1.FriendFoundReason}},
			note:       jackNote,
		},
		step{
			title:      "Point foo-02 at jack: foo-02 becomes happy too",
			commands:   [][]string{kubectlCommand("patch", "foo", "foo-02", "--type=merge", "-p", `{"spec":{"name":"jack"}}`)},
			happy:      []string{"foo-02"},
			wantEvents: map[string][]string{"foo-02": {tutorialv1.FriendFoundReason}},
		},
		step{
			title:      "Delete jack: both Foos lose their friend",
			commands:   [][]string{kubectlCommand("delete", "pod", "jack")},
			unhappy:    []string{"foo-01", "foo-02"},
			wantEvents: map[string][]string{"foo-01": unhappyReasons, "foo-02": unhappyReasons},
		},
		step{
			title:    "Ask foo-01 what happened: its Happy condition and its Events",
			commands: [][]string{kubectlCommand("describe", "foo", "foo-01")},
		},
	)
	if c.onNode {
		steps = append(steps, step{
			title: "Read the operator's log, then remove the operator",
			commands: [][]string{
				kubectlCommand("-n", operatorNamespace, "logs", "deployment/"+operatorDeployment, "--tail=5"),
				{"make", "undeploy"},
			},
			note: "make undeploy removes everything make deploy created, the Foo CRD and with it every Foo.",
		})
	}
	return steps
}

// Names of what config/default deploys.
const (
	operatorNamespace  = "foo-operator-system"
	operatorDeployment = "foo-operator-controller-manager"
)

// tellStory plays the story against c, printing each command and its output, then the
// Events the operator emitted during the step; without a node, it ends with the operator's
// metrics.
func tellStory(ctx context.Context, c *demoCluster, w io.Writer) error {
	reader, err := client.New(c.Config, client.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		return err
	}
	shown := sets.New[string]()

	steps := story(c)
	for i, s := range steps {
		_, _ = fmt.Fprintf(w, "\n--- Step %d of %d: %s\n", i+1, len(steps), s.title)
		for _, command := range s.allCommands() {
			_, _ = fmt.Fprintf(w, "$ %s\n", shellJoin(command))
			var output string
			if command[0] == "make" {
				output, err = c.runMake(ctx, command[1:]...)
			} else {
				output, err = c.kubectl.run(ctx, command[1:]...)
			}
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
	if c.manager != nil {
		return printFooMetrics(ctx, c.manager.MetricsURL("http"), w)
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
			if event.Source.Component == controller.ControllerName && !shown.Has(string(event.UID)) {
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
	_, _ = fmt.Fprintf(w, "Events from %s:\n", controller.ControllerName)
	table := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	_, _ = fmt.Fprintln(table, "  OBJECT\tTYPE\tREASON\tMESSAGE")
	for _, event := range events {
		_, _ = fmt.Fprintf(table, "  %s/%s\t%s\t%s\t%s\n",
			strings.ToLower(event.InvolvedObject.Kind), event.InvolvedObject.Name, event.Type, event.Reason, event.Message)
	}
	_ = table.Flush()
}

// printFooMetrics prints the operator's own series from the manager's metrics endpoint.
func printFooMetrics(ctx context.Context, metricsURL string, w io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("reading the manager's metrics: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()

	_, _ = fmt.Fprintf(w, "\n--- The operator's metrics\n$ curl -s %s | grep ^foo_operator_\n", metricsURL)
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
