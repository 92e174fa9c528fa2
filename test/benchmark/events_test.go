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

import "testing"

func TestEventRoundsLeaveThePodsAsTheyWere(t *testing.T) {
	rounds := eventRounds(50, 12)
	total := 0
	for i, round := range rounds {
		deleted := map[int]bool{}
		for _, event := range round {
			if event.delete {
				deleted[event.target] = true
			} else if !deleted[event.target] {
				t.Fatalf("round %d creates the friend of Foo %d, which it did not delete", i, event.target)
			} else {
				delete(deleted, event.target)
			}
		}
		if len(deleted) != 0 {
			t.Errorf("round %d leaves the friends of %v deleted", i, deleted)
		}
		total += len(round)
	}
	if total != 50 {
		t.Errorf("%d events planned, want 50", total)
	}
}
