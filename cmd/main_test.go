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
	"testing"

	. "github.com/onsi/gomega"
)

func TestParseNamespaces(t *testing.T) {
	tests := []struct {
		value string
		want  []string
	}{
		{value: "", want: nil},
		{value: "team-a", want: []string{"team-a"}},
		{value: "team-a,team-b", want: []string{"team-a", "team-b"}},
		{value: " team-a , ,team-b,", want: []string{"team-a", "team-b"}},
		{value: ",", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			NewWithT(t).Expect(parseNamespaces(tt.value)).To(Equal(tt.want))
		})
	}
}
