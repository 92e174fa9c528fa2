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
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// The operator's own metrics, served with controller-runtime's on the manager's metrics
// endpoint. docs/metrics.md documents them; keep the two in step.

// happyTransitions counts the changes of mood that the controller writes, the same ones it
// announces with an Event.
var happyTransitions = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "foo_operator_happy_transitions_total",
	Help: "Times a Foo turned happy or unhappy, by the state it turned to (happy) and the reason of its Happy condition.",
}, []string{"happy", "reason"})

func init() {
	metrics.Registry.MustRegister(happyTransitions)
	// Every series exists from the start, so that rate() and increase() see the first one.
	happyTransitions.WithLabelValues("true", tutorialv1.FriendFoundReason)
	happyTransitions.WithLabelValues("false", tutorialv1.FriendNotFoundReason)
	happyTransitions.WithLabelValues("false", tutorialv1.FriendTerminatingReason)
}

func countHappyTransition(happy bool, reason string) {
	happyTransitions.WithLabelValues(strconv.FormatBool(happy), reason).Inc()
}

var foosDesc = prometheus.NewDesc("foo_operator_foos",
	"Foos by namespace and by whether they are happy (status.happy), as the operator's cache holds them.",
	[]string{"namespace", "happy"}, nil)

// foosCollector reports foo_operator_foos at scrape time by counting the Foos in the
// manager's informer cache: a read of memory, once per scrape, whatever the number of
// reconciles. A gauge kept up to date from Reconcile instead would need every Foo's last
// state to handle deletions, and would start from zero after a restart or a change of
// leader; counting the cache is right by construction, and is as fresh as the informers.
// Every replica reports it, leader or not: its cache holds the same Foos.
type foosCollector struct {
	cache client.Reader
}

func (c foosCollector) Describe(descs chan<- *prometheus.Desc) {
	descs <- foosDesc
}

func (c foosCollector) Collect(series chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var foos tutorialv1.FooList
	// Only namespaces and status.happy are read, so the cached objects need not be copied.
	if err := c.cache.List(ctx, &foos, client.UnsafeDisableDeepCopy); err != nil {
		// An invalid metric would fail the whole scrape, controller-runtime's metrics
		// included; the series is left out instead, until the cache can answer.
		logf.Log.WithName(ControllerName).Error(err, "Failed to count Foos for metrics")
		return
	}

	type moods struct{ happy, unhappy int }
	byNamespace := map[string]*moods{}
	for i := range foos.Items {
		count := byNamespace[foos.Items[i].Namespace]
		if count == nil {
			count = &moods{}
			byNamespace[foos.Items[i].Namespace] = count
		}
		if foos.Items[i].Status.Happy {
			count.happy++
		} else {
			count.unhappy++
		}
	}
	// Both states are reported for each namespace that has Foos, the missing one as 0.
	for namespace, count := range byNamespace {
		series <- prometheus.MustNewConstMetric(foosDesc, prometheus.GaugeValue, float64(count.happy), namespace, "true")
		series <- prometheus.MustNewConstMetric(foosDesc, prometheus.GaugeValue, float64(count.unhappy), namespace, "false")
	}
}
