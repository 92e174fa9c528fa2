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

package controller

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/yaml"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

var _ = Describe("Metrics", func() {
	var namespace string

	BeforeEach(func() {
		namespace = createNamespace()
	})

	It("count the Foos of each namespace by happy state", func() {
		foos := func(happy string) func(Gomega) float64 {
			return func(g Gomega) float64 {
				return metricValue(g, "foo_operator_foos", map[string]string{"namespace": namespace, "happy": happy})
			}
		}

		foo01 := createFoo(namespace, "foo-01", "jack")
		createFoo(namespace, "foo-02", "joe")
		Eventually(foos("false")).Should(Equal(2.0))
		Expect(foos("true")(Default)).To(Equal(0.0), "a namespace reports both states")

		createJack(namespace)
		Eventually(foos("true")).Should(Equal(1.0))
		Expect(foos("false")(Default)).To(Equal(1.0))

		Expect(k8sClient.Delete(ctx, foo01)).To(Succeed())
		Eventually(foos("true")).Should(Equal(0.0))
		Expect(foos("false")(Default)).To(Equal(1.0))
	})

	It("count happy transitions by the state turned to and its reason", func() {
		transitions := func(happy, reason string) func(Gomega) float64 {
			return func(g Gomega) float64 {
				return metricValue(g, "foo_operator_happy_transitions_total", map[string]string{"happy": happy, "reason": reason})
			}
		}
		turnedHappy := transitions("true", tutorialv1.FriendFoundReason)
		turnedUnhappy := func(g Gomega) float64 {
			return transitions("false", tutorialv1.FriendNotFoundReason)(g) +
				transitions("false", tutorialv1.FriendTerminatingReason)(g)
		}
		happyBefore, unhappyBefore := turnedHappy(Default), turnedUnhappy(Default)

		By("creating a Foo without a friend: it starts unhappy, which is no transition")
		foo := createFoo(namespace, "foo", "jack")
		expectHappy(foo, false, tutorialv1.FriendNotFoundReason)

		By("creating and deleting its friend: one transition each way")
		jack := createJack(namespace)
		expectHappy(foo, true, tutorialv1.FriendFoundReason)
		Expect(k8sClient.Delete(ctx, jack)).To(Succeed())
		expectHappy(foo, false, tutorialv1.FriendNotFoundReason)

		// The controller counts right after it writes the status, so the count may trail it.
		Eventually(turnedHappy).Should(Equal(happyBefore + 1))
		Eventually(turnedUnhappy).Should(Equal(unhappyBefore + 1))
	})

	It("serve every metric that the alerts use", func() {
		// Makes each metric this suite's manager can produce appear at least once.
		foo := createFoo(namespace, "foo", "jack")
		expectHappy(foo, false, tutorialv1.FriendNotFoundReason)

		families, err := ctrlmetrics.Registry.Gather()
		Expect(err).NotTo(HaveOccurred())
		served := map[string]bool{}
		for _, family := range families {
			served[family.GetName()] = true
		}

		rules := readAlertingRules()
		Expect(rules).NotTo(BeEmpty())
		operatorMetric := regexp.MustCompile(`\b(?:foo_operator|controller_runtime|workqueue)_[a-z_]+`)
		for _, rule := range rules {
			used := operatorMetric.FindAllString(rule.Expr, -1)
			Expect(used).NotTo(BeEmpty(), "alert %s uses none of the operator's metrics", rule.Alert)
			for _, name := range used {
				name = strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_count")
				Expect(served).To(HaveKey(name), "alert %s uses %s, which the manager does not serve", rule.Alert, name)
			}
		}
	})

	It("link every alert to its runbook", func() {
		runbook, err := os.ReadFile(filepath.Join("..", "..", "docs", "metrics.md"))
		Expect(err).NotTo(HaveOccurred())
		for _, rule := range readAlertingRules() {
			url := rule.Annotations["runbook_url"]
			Expect(url).To(HaveSuffix("/docs/metrics.md#"+strings.ToLower(rule.Alert)), "runbook_url of %s", rule.Alert)
			Expect(string(runbook)).To(ContainSubstring("\n### "+rule.Alert+"\n"), "runbook section of %s", rule.Alert)
			Expect(rule.Annotations).To(HaveKey("summary"))
			Expect(rule.Annotations).To(HaveKey("description"))
		}
	})
})

// metricValue returns the value of the gauge or counter name whose labels include labels,
// from the registry the manager serves. A series that is not there fails g: a count of
// zero must be served as zero, or a dashboard cannot tell it from a missing one.
func metricValue(g Gomega, name string, labels map[string]string) float64 {
	families, err := ctrlmetrics.Registry.Gather()
	g.Expect(err).NotTo(HaveOccurred())
	var served []string
	for _, family := range families {
		if family.GetName() != name {
			continue
		}
		for _, metric := range family.GetMetric() {
			if hasLabels(metric, labels) {
				if family.GetType() == dto.MetricType_COUNTER {
					return metric.GetCounter().GetValue()
				}
				return metric.GetGauge().GetValue()
			}
			served = append(served, metric.String())
		}
	}
	missing := fmt.Errorf("metric %s has no series with labels %v; its series: %v", name, labels, served)
	g.Expect(missing).NotTo(HaveOccurred(), "a zero must be served as a zero, not as a missing series")
	return 0
}

func hasLabels(metric *dto.Metric, want map[string]string) bool {
	matched := 0
	for _, label := range metric.GetLabel() {
		if value, ok := want[label.GetName()]; ok && value == label.GetValue() {
			matched++
		}
	}
	return matched == len(want)
}

type alertingRule struct {
	Alert       string            `json:"alert"`
	Expr        string            `json:"expr"`
	Annotations map[string]string `json:"annotations"`
}

// readAlertingRules reads the alerts of the PrometheusRule in config/prometheus.
func readAlertingRules() []alertingRule {
	content, err := os.ReadFile(filepath.Join("..", "..", "config", "prometheus", "alerts.yaml"))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	var prometheusRule struct {
		Kind string `json:"kind"`
		Spec struct {
			Groups []struct {
				Rules []alertingRule `json:"rules"`
			} `json:"groups"`
		} `json:"spec"`
	}
	ExpectWithOffset(1, yaml.Unmarshal(content, &prometheusRule)).To(Succeed())
	ExpectWithOffset(1, prometheusRule.Kind).To(Equal("PrometheusRule"))
	var rules []alertingRule
	for _, group := range prometheusRule.Spec.Groups {
		rules = append(rules, group.Rules...)
	}
	return rules
}
