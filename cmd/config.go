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
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

// parseNamespaces splits WATCH_NAMESPACE's comma-separated list of namespaces, ignoring
// blanks around the names. An empty (or blank) value means every namespace. A name that
// cannot be a namespace's, an empty one between commas included, is an error that names
// it and says why: a manager watching a namespace that cannot exist would run and never
// see a Foo.
func parseNamespaces(value string) ([]string, error) {
	if strings.TrimSpace(value) == "" {
		return nil, nil
	}
	var namespaces []string
	var problems []error
	for i, namespace := range strings.Split(value, ",") {
		namespace = strings.TrimSpace(namespace)
		if namespace == "" {
			problems = append(problems, fmt.Errorf("entry %d is empty (two commas in a row, or one at an end)", i+1))
			continue
		}
		if reasons := validation.IsDNS1123Label(namespace); len(reasons) > 0 {
			problems = append(problems, fmt.Errorf("%q is not a namespace name: %s", namespace, strings.Join(reasons, "; ")))
			continue
		}
		namespaces = append(namespaces, namespace)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s=%q: %w", watchNamespaceEnv, value, errors.Join(problems...))
	}
	return namespaces, nil
}

// managerFlags are the manager's flags whose values can be wrong in ways the flag package
// does not see.
type managerFlags struct {
	maxConcurrentReconciles                   int
	leaderElection                            bool
	leaseDuration, renewDeadline, retryPeriod time.Duration
}

// leaderElectionJitter is client-go's: the leader retries renewing its lease at up to 1.2
// retry periods, which must fit in the renew deadline.
const leaderElectionJitter = 1.2

// validate returns an error naming each flag whose value the manager cannot run with, and
// why, so that it exits at once instead of failing later (or never reconciling).
func (f managerFlags) validate() error {
	var problems []error
	if f.maxConcurrentReconciles < 1 {
		problems = append(problems, fmt.Errorf("--max-concurrent-reconciles=%d: must be at least 1", f.maxConcurrentReconciles))
	}
	for _, duration := range []struct {
		flag  string
		value time.Duration
	}{
		{"--leader-elect-lease-duration", f.leaseDuration},
		{"--leader-elect-renew-deadline", f.renewDeadline},
		{"--leader-elect-retry-period", f.retryPeriod},
	} {
		if duration.value <= 0 {
			problems = append(problems, fmt.Errorf("%s=%s: must be positive", duration.flag, duration.value))
		}
	}
	if len(problems) == 0 && f.leaderElection {
		if f.renewDeadline >= f.leaseDuration {
			problems = append(problems, fmt.Errorf("--leader-elect-renew-deadline=%s: must be shorter than --leader-elect-lease-duration=%s",
				f.renewDeadline, f.leaseDuration))
		}
		if float64(f.renewDeadline) <= leaderElectionJitter*float64(f.retryPeriod) {
			problems = append(problems, fmt.Errorf("--leader-elect-renew-deadline=%s: must be longer than %.1f times --leader-elect-retry-period=%s",
				f.renewDeadline, leaderElectionJitter, f.retryPeriod))
		}
	}
	return errors.Join(problems...)
}
