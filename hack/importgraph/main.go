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

// Command importgraph draws the project's import graph, as `go list` reads it from the tree
// under every build tag of the suites, into the Mermaid block that follows the marker line
// in a Markdown page (docs/architecture.md): the drawing cannot drift from the code, since
// `make verify` runs it and fails when it changed the page. Packages are drawn in the groups
// of the table below; an arrow points from a group to a group it imports, dashed where only
// tests import it. A package that no group holds is an error, so that a new package is given
// its place in the drawing when it is written.
//
//	importgraph --page docs/architecture.md
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// module is the operator's module path.
const module = "github.com/example/foo-operator"

// marker is the line of the page after which the generated block stands.
const marker = "<!-- make verify draws the next block from `go list` (hack/importgraph). -->"

// group is one box of the drawing: the packages whose path (below the module) is one of
// paths or under one of them.
type group struct {
	id, label string
	paths     []string
}

// groups are the boxes, in the order they are declared; the first whose paths hold a package
// takes it. External packages appear only where a group names them by full path.
var groups = []group{
	{"cmd", "cmd<br/>main.go: flags, manager, controller.Setup", []string{"cmd"}},
	{"controller", "internal/controller<br/>Setup, FooReconciler, upgrade holds,<br/>cache options, index, metrics", []string{"internal/controller"}},
	{"status", "internal/status<br/>pure: Desired status, MergePatch", []string{"internal/status"}},
	{"memorylimit", "internal/memorylimit<br/>names a too-small memory limit in the log", []string{"internal/memorylimit"}},
	{"selftest", "internal/selftest<br/>manager selftest: a Foo served,<br/>as helm test shows it", []string{"internal/selftest"}},
	{"api", "api/v1<br/>Foo types, CRD markers", []string{"api"}},
	{"envtest", "controller-runtime's envtest<br/>kube-apiserver and etcd of make envtest", []string{"sigs.k8s.io/controller-runtime/pkg/envtest"}},
	{"managerprocess", "hack/localcluster/managerprocess<br/>the manager as a process", []string{"hack/localcluster/managerprocess"}},
	{"localcluster", "hack/localcluster<br/>Start composes registry, controlplane, node,<br/>olm, faults; process, pki, resources",
		[]string{"hack/localcluster"}},
	{"demo", "hack/demo<br/>make demo, make cluster", []string{"hack/demo"}},
	{"tools", "hack/imagebuilder, hack/stage-bundle, hack/supplychain,<br/>hack/importgraph, hack/figures, hack/chartdocs",
		[]string{"hack/imagebuilder", "hack/stage-bundle", "hack/supplychain", "hack/importgraph", "hack/figures", "hack/chartdocs"}},
	{"testcluster", "test/testcluster<br/>the cluster under test: a provider<br/>(local or existing), its capabilities",
		[]string{"test/testcluster"}},
	{"suite", "test/harness/suite<br/>the harness's Ginkgo side", []string{"test/harness/suite"}},
	{"harness", "test/harness<br/>the suites' shared glue, no test framework", []string{"test/harness"}},
	{"processsuites", "test/reliability, test/security<br/>the manager as a process on envtest",
		[]string{"test/reliability", "test/security"}},
	{"node", "test/node<br/>the operator's pod on a node", []string{"test/node"}},
	{"e2e", "test/e2e<br/>the journeys, one label a file", []string{"test/e2e"}},
	{"files", "test/images, test/packaging<br/>what the project ships", []string{"test/images", "test/packaging"}},
	{"report", "test/benchmark/report<br/>tables, plots, statistics", []string{"test/benchmark/report"}},
	{"bench", "test/benchmark<br/>the driver, with floor, naive, fooapi", []string{"test/benchmark"}},
}

// listed is what `go list -json` tells of a package.
type listed struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func main() {
	page := flag.String("page", "docs/architecture.md", "the Markdown page whose block to rewrite")
	tags := flag.String("tags", "e2e,node,images", "the build tags of the suites, so that every file is read")
	flag.Parse()
	if err := run(*page, *tags); err != nil {
		fmt.Fprintln(os.Stderr, "importgraph:", err)
		os.Exit(1)
	}
}

func run(page, tags string) error {
	packages, err := list(tags)
	if err != nil {
		return err
	}
	drawing, err := draw(packages)
	if err != nil {
		return err
	}
	text, err := os.ReadFile(page)
	if err != nil {
		return err
	}
	updated, err := replaceBlock(string(text), drawing)
	if err != nil {
		return fmt.Errorf("%s: %w", page, err)
	}
	return os.WriteFile(page, []byte(updated), 0o644)
}

// list runs `go list -json` on every package of the module.
func list(tags string) ([]listed, error) {
	cmd := exec.Command("go", "list", "-tags", tags, "-json", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	output, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w\n%s", err, stderr.String())
	}
	var packages []listed
	for decoder := json.NewDecoder(bytes.NewReader(output)); ; {
		var p listed
		if err := decoder.Decode(&p); errors.Is(err, io.EOF) {
			return packages, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %w", err)
		}
		packages = append(packages, p)
	}
}

// groupOf is the id of the group that holds the package path, "" for a package outside the
// module that no group names.
func groupOf(path string) (string, error) {
	inModule := path == module || strings.HasPrefix(path, module+"/")
	relative := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	for _, g := range groups {
		for _, p := range g.paths {
			if inModule && (relative == p || strings.HasPrefix(relative, p+"/")) || !inModule && path == p {
				return g.id, nil
			}
		}
	}
	if inModule {
		return "", fmt.Errorf("package %s is in no group of hack/importgraph: give it a place in the drawing", path)
	}
	return "", nil
}

// draw renders the Mermaid flowchart of the groups and the imports between them.
func draw(packages []listed) (string, error) {
	type edge struct{ from, to string }
	solid, dashed := map[edge]bool{}, map[edge]bool{}
	used := map[string]bool{}
	for _, p := range packages {
		from, err := groupOf(p.ImportPath)
		if err != nil {
			return "", err
		}
		used[from] = true
		for imports, into := range map[*[]string]map[edge]bool{&p.Imports: solid, &p.TestImports: dashed, &p.XTestImports: dashed} {
			for _, imported := range *imports {
				to, err := groupOf(imported)
				if err != nil {
					return "", err
				}
				if to != "" && to != from {
					into[edge{from, to}] = true
					used[to] = true
				}
			}
		}
	}
	var b strings.Builder
	b.WriteString("```mermaid\nflowchart TB\n")
	for _, g := range groups {
		if used[g.id] {
			fmt.Fprintf(&b, "    %s[\"%s\"]\n", g.id, g.label)
		}
	}
	b.WriteString("\n")
	var lines []string
	for e := range solid {
		lines = append(lines, fmt.Sprintf("    %s --> %s", e.from, e.to))
	}
	for e := range dashed {
		if !solid[e] {
			lines = append(lines, fmt.Sprintf("    %s -.-> %s", e.from, e.to))
		}
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(order(a), order(b)) })
	b.WriteString(strings.Join(lines, "\n"))
	b.WriteString("\n```\n")
	return b.String(), nil
}

// order sorts the arrows by the groups' order in the table, then by text.
func order(line string) string {
	from := strings.Fields(line)[0]
	for i, g := range groups {
		if g.id == from {
			return fmt.Sprintf("%03d %s", i, line)
		}
	}
	return line
}

// replaceBlock replaces the fenced block after the marker line with drawing.
func replaceBlock(text, drawing string) (string, error) {
	start := strings.Index(text, marker+"\n")
	if start < 0 {
		return "", fmt.Errorf("no line %q", marker)
	}
	blockStart := start + len(marker) + 1
	if !strings.HasPrefix(text[blockStart:], "```") {
		return "", errors.New("the marker line is not followed by a fenced block")
	}
	end := strings.Index(text[blockStart+3:], "\n```\n")
	if end < 0 {
		return "", errors.New("the block after the marker line has no end")
	}
	blockEnd := blockStart + 3 + end + len("\n```\n")
	return text[:blockStart] + drawing + text[blockEnd:], nil
}
