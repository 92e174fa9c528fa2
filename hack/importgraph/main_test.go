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
	"strings"
	"testing"
)

func TestReplaceBlockRewritesOnlyTheBlockAfterTheMarker(t *testing.T) {
	page := "intro\n" + marker + "\n```mermaid\nold\n```\nafter\n```mermaid\nkept\n```\n"
	got, err := replaceBlock(page, "```mermaid\nnew\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "intro\n" + marker + "\n```mermaid\nnew\n```\nafter\n```mermaid\nkept\n```\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := replaceBlock("no marker here", "x"); err == nil || !strings.Contains(err.Error(), "no line") {
		t.Errorf("a page without the marker: error %v", err)
	}
}

func TestDrawGroupsImportsAndDashesTestOnlyOnes(t *testing.T) {
	drawing, err := draw([]listed{
		{ImportPath: module + "/cmd", Imports: []string{module + "/internal/controller", "fmt"}},
		{ImportPath: module + "/internal/controller", Imports: []string{module + "/api/v1"},
			TestImports: []string{"sigs.k8s.io/controller-runtime/pkg/envtest"}},
		{ImportPath: module + "/api/v1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"    cmd --> controller", "    controller --> api", "    controller -.-> envtest"} {
		if !strings.Contains(drawing, line+"\n") {
			t.Errorf("the drawing lacks %q:\n%s", line, drawing)
		}
	}
	if strings.Contains(drawing, "fmt") {
		t.Errorf("the drawing shows a package outside the module that no group names:\n%s", drawing)
	}
	if _, err := draw([]listed{{ImportPath: module + "/unplaced"}}); err == nil || !strings.Contains(err.Error(), "unplaced") {
		t.Errorf("a package in no group: error %v", err)
	}
}
