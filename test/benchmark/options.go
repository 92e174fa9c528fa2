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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/example/foo-operator/test/benchmark/report"
)

// options are the benchmark's parameters, from its flags. They are parsed here and only
// here, and handed down to what needs them.
type options struct {
	pods            []int
	foos            []int
	events          int
	namespaces      int
	friendShare     float64
	implementations []string
	binaries        map[string]string
	managerArgs     []string
	crdDir          string
	resultsDir      string
	eventTimeout    time.Duration
	settle          time.Duration
	roundSettle     time.Duration
	eventGap        time.Duration
	profile         time.Duration
	runs            int
	burst           int
	naiveMaxPods    int
	foosPerPod      float64
	// breakdown has ours and the floor log the moments of each event at V(2), from which
	// the slowest events are broken down; without it they log at V(0), as deployed.
	breakdown bool
	// inCluster runs ours as the operator's pod on a real node, from the manager image
	// foo-operator:bench in the OCI layout managerImages.
	inCluster     bool
	managerImages string
}

// parseFlags defines the benchmark's flags on the command line's flag set, beside klog's,
// parses them and returns the options they give.
func parseFlags() (options, error) {
	var (
		opts                           options
		pods, foos, implementations    string
		managerBin, naiveBin, floorBin string
		managerArgs, managerDeployment string
	)
	flag.StringVar(&pods, "pods", "1000", "Comma-separated numbers of pods (P), one scenario each.")
	flag.StringVar(&foos, "foos", "100", "Comma-separated numbers of Foos (F); every P is run with every F.")
	flag.Float64Var(&opts.foosPerPod, "foos-per-pod", 0, "If set, every scenario has this many Foos per pod (0.1: F = P/10) instead of --foos.")
	flag.IntVar(&opts.events, "events", 1000, "Pod events (E) per implementation, rounded up to an even number: every pod deleted is created again.")
	flag.BoolVar(&opts.inCluster, "in-cluster", false,
		"Run ours as the operator's pod (config/default) on a real node of the local cluster, its CPU and memory read "+
			"from its cgroup; the others stay processes (needs root and the node's programs: run through `make "+
			"bench-in-cluster`).")
	flag.StringVar(&opts.managerImages, "manager-images", "", "With --in-cluster, the OCI image layout holding the manager image foo-operator:bench.")
	flag.IntVar(&opts.runs, "runs", 1, "How many times to run each scenario, each on a fresh control plane, for the spread of the figures.")
	flag.IntVar(&opts.burst, "burst", 100,
		"Friend pods created at once, then deleted at once, per implementation, in each scenario's first run; 0 skips "+
			"the bursts.")
	flag.IntVar(&opts.naiveMaxPods, "naive-max-pods", 20000,
		"Leave the naive design out of scenarios with more pods than this: each of its reconciles copies every pod.")
	flag.IntVar(&opts.namespaces, "namespaces", 10, "Namespaces the pods and Foos are spread over.")
	flag.Float64Var(&opts.friendShare, "friend-share", 0.5, "Share of the Foos that name an existing pod; the others name none.")
	flag.StringVar(&implementations, "implementations", "ours,naive,floor", "Comma-separated implementations to run, in the order of their rounds.")
	flag.StringVar(&managerBin, "manager", "bin/manager", "The operator's manager binary (ours).")
	flag.StringVar(&managerArgs, "manager-args", "",
		"Extra flags for the manager, separated by spaces, such as --max-concurrent-reconciles=1; they come after (and "+
			"so override) the Deployment's tuning flags.")
	flag.StringVar(&managerDeployment, "manager-deployment", filepath.Join("config", "manager", "manager.yaml"),
		"The manager's Deployment, whose tuning flags (--max-concurrent-reconciles) ours is run with, as it is deployed.")
	flag.StringVar(&naiveBin, "naive", "bin/bench-naive", "The naive design's binary, built from test/benchmark/naive.")
	flag.StringVar(&floorBin, "floor", "bin/bench-floor", "The floor's binary, built from test/benchmark/floor.")
	flag.StringVar(&opts.crdDir, "crd-dir", filepath.Join("config", "crd", "bases"), "The folder holding the Foo CRD.")
	flag.StringVar(&opts.resultsDir, "results", "bench-results", "The folder the JSON, the SVG and the processes' logs are written to.")
	flag.DurationVar(&opts.eventTimeout, "event-timeout", 30*time.Second, "How long to wait for the Foo status change that a pod event causes.")
	flag.DurationVar(&opts.eventGap, "event-gap", 20*time.Millisecond,
		"How long to pause after each pod event's status change is seen, before the next event.")
	flag.DurationVar(&opts.settle, "settle", time.Second, "How long an implementation must make no API request to count as idle.")
	flag.DurationVar(&opts.roundSettle, "round-settle", 200*time.Millisecond,
		"How long every implementation must use no CPU before a round of events starts.")
	flag.BoolVar(&opts.breakdown, "breakdown", true,
		"Have ours and the floor log the moments of each event at V(2), and break down the slowest events from their "+
			"logs. That logging costs ours CPU it does not spend as deployed, at V(0): --breakdown=false measures CPU as "+
			"deployed, with no breakdown.")
	flag.DurationVar(&opts.profile, "cpu-profile", 0,
		"If set, save a CPU profile of this length of each implementation in turn, from the start of the pod events, to "+
			"the run's folder in the results. Profiling costs CPU: leave it off for the figures.")
	flag.Parse()

	var err error
	if opts.pods, err = parseCounts(pods); err != nil {
		return options{}, err
	}
	if opts.foos, err = parseCounts(foos); err != nil {
		return options{}, err
	}
	opts.events += opts.events % 2
	tuning, err := deployedTuning(managerDeployment)
	if err != nil {
		return options{}, err
	}
	opts.managerArgs = append(tuning, strings.Fields(managerArgs)...)
	opts.binaries = map[string]string{report.Ours: managerBin, report.Naive: naiveBin, report.Floor: floorBin}
	for _, name := range strings.Split(implementations, ",") {
		if _, known := opts.binaries[name]; !known {
			return options{}, fmt.Errorf("unknown implementation %q", name)
		}
		opts.implementations = append(opts.implementations, name)
	}
	return opts, nil
}

// parseCounts parses a comma-separated list of positive numbers.
func parseCounts(value string) ([]int, error) {
	var counts []int
	for _, field := range strings.Split(value, ",") {
		count, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || count <= 0 {
			return nil, fmt.Errorf("%q is not a list of positive numbers", value)
		}
		counts = append(counts, count)
	}
	return counts, nil
}

// deployedTuning returns the flags of the manager's container in the Deployment of path that
// tune how it works (the number of workers), so that ours is measured as it is deployed.
func deployedTuning(path string) ([]string, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = file.Close() }()
	decoder := yaml.NewYAMLOrJSONDecoder(file, 4096)
	for {
		var deployment appsv1.Deployment
		if err := decoder.Decode(&deployment); errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s holds no Deployment with a container named manager", path)
		} else if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if deployment.Kind != "Deployment" {
			continue
		}
		for _, container := range deployment.Spec.Template.Spec.Containers {
			if container.Name != "manager" {
				continue
			}
			var tuning []string
			for _, arg := range container.Args {
				if strings.HasPrefix(arg, "--max-concurrent-reconciles=") {
					tuning = append(tuning, arg)
				}
			}
			return tuning, nil
		}
	}
}
