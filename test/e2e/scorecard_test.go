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
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// scorecardResult is what `operator-sdk scorecard -o json` prints.
type scorecardResult struct {
	Items []struct {
		Spec struct {
			Image      string   `json:"image"`
			Entrypoint []string `json:"entrypoint"`
		} `json:"spec"`
		Status struct {
			Results []struct {
				Name   string   `json:"name"`
				State  string   `json:"state"`
				Errors []string `json:"errors"`
				Log    string   `json:"log"`
			} `json:"results"`
		} `json:"status"`
	} `json:"items"`
}

// scorecardJourney runs operator-sdk scorecard on the newest release's bundle, as its
// scorecard configuration says, with the test pods on the cluster's node.
func scorecardJourney() {
	It("passes all six configured tests, run as pods on the node from the bundle image", func(ctx context.Context) {
		const namespace = "scorecard"
		createNamespaces(ctx, newNamespace(namespace, nil))
		output := run(ctx, scratchDir("scorecard"), tools.operatorSDK, "scorecard", bundleImage("0.3.0"),
			"--namespace", namespace, "--output", "json", "--wait-time", "180s",
			// The images that hold the bundle for the test pods: busybox, built here (the
			// defaults are quay.io images named by digest).
			"--untar-image", cluster.Image("busybox"), "--storage-image", cluster.Image("busybox"))
		var result scorecardResult
		Expect(json.Unmarshal([]byte(output[indexOfJSON(output):]), &result)).To(Succeed(), "scorecard's output:\n%s", output)
		var passed []string
		for _, item := range result.Items {
			Expect(item.Spec.Image).To(Equal("quay.io/operator-framework/scorecard-test:v1.42.2"),
				"the bundle's scorecard configuration names the test image, pulled through the registry's quay.io mirror")
			for _, test := range item.Status.Results {
				Expect(test.State).To(Equal("pass"), "scorecard test %s: %v\n%s", test.Name, test.Errors, test.Log)
				passed = append(passed, test.Name)
			}
		}
		Expect(passed).To(ConsistOf("basic-check-spec", "olm-bundle-validation", "olm-crds-have-validation",
			"olm-crds-have-resources", "olm-spec-descriptors", "olm-status-descriptors"))
	}, SpecTimeout(8*time.Minute))
}

// indexOfJSON is where the JSON document begins in a tool's output (after its log lines).
func indexOfJSON(output string) int {
	for i, c := range output {
		if c == '{' {
			return i
		}
	}
	return 0
}
