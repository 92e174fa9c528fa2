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

// Command figures keeps the measured figures of the docs true to the commands that measured
// them. A figure stands in a page between markers, <!-- figure NAME -->value<!-- /figure -->,
// and its value, the command that measured it and the commit it ran on are recorded in
// docs/figures.json, which only that command writes (`figures set`). `make verify` runs
// `figures check`: it fails on a figure whose text is not its record's (hand-edited, or
// measured anew and not rendered), on a marker no record names, and on a measured figure
// written in the README's prose outside markers.
//
//	figures set --command "make first-run-times" NAME=VALUE...   record and render
//	figures check                                                 fail on what is stale
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Record is what docs/figures.json holds of one figure.
type Record struct {
	Value   string `json:"value"`
	Command string `json:"command"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
}

const recordsFile = "docs/figures.json"

// marker finds a figure in a page: its name and the text that stands for its value.
var marker = regexp.MustCompile(`<!-- figure ([a-z0-9.-]+) -->(.*?)<!-- /figure -->`)

// measured finds a figure-shaped phrase, a number and a unit of time or size, or a count of
// specs: what a command measures and prose must not keep by hand.
var measured = regexp.MustCompile(`\b\d+(\.\d+)?\s?(ms|µs|seconds?|minutes?|min|hours?|MiB|MB|GiB|specs?)\b`)

// inlineCode finds inline code, which names settings and commands, not measurements.
var inlineCode = regexp.MustCompile("`[^`]*`")

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: figures set --command CMD NAME=VALUE... | figures check")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "set":
		flags := flag.NewFlagSet("set", flag.ExitOnError)
		command := flags.String("command", "", "the command that measured the figures")
		_ = flags.Parse(os.Args[2:])
		err = set(*command, flags.Args())
	case "check":
		var problems []string
		problems, err = check()
		for _, problem := range problems {
			fmt.Fprintln(os.Stderr, problem)
		}
		if err == nil && len(problems) > 0 {
			err = fmt.Errorf("%d figures are not as their commands measured them: rerun the command each names, "+
				"or put a measured figure between figure markers (hack/figures)", len(problems))
		}
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "figures:", err)
		os.Exit(1)
	}
}

// set records each NAME=VALUE as measured now by command on this checkout's commit, and
// renders every page.
func set(command string, assignments []string) error {
	if command == "" || len(assignments) == 0 {
		return errors.New("set needs --command and at least one NAME=VALUE")
	}
	commit, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return fmt.Errorf("reading the commit: %w", err)
	}
	records, err := readRecords()
	if err != nil {
		return err
	}
	for _, assignment := range assignments {
		name, value, ok := strings.Cut(assignment, "=")
		if !ok || !marker.MatchString("<!-- figure "+name+" --><!-- /figure -->") {
			return fmt.Errorf("%q is not NAME=VALUE with a name of lower-case letters, digits, dots and dashes", assignment)
		}
		records[name] = Record{Value: value, Command: command, Commit: strings.TrimSpace(string(commit)),
			Date: time.Now().UTC().Format(time.DateOnly)}
	}
	data, err := json.MarshalIndent(records, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(recordsFile, append(data, '\n'), 0o644); err != nil {
		return err
	}
	pages, err := pages()
	if err != nil {
		return err
	}
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			return err
		}
		rendered := render(string(text), records)
		if rendered != string(text) {
			if err := os.WriteFile(page, []byte(rendered), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// check returns a line for each figure that is stale, unknown or kept by hand.
func check() ([]string, error) {
	records, err := readRecords()
	if err != nil {
		return nil, err
	}
	pages, err := pages()
	if err != nil {
		return nil, err
	}
	var problems []string
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			return nil, err
		}
		problems = append(problems, checkPage(page, string(text), records)...)
	}
	return problems, nil
}

// checkPage checks one page's markers against the records and, for the README, its prose.
func checkPage(page, text string, records map[string]Record) []string {
	var problems []string
	for number, line := range strings.Split(text, "\n") {
		for _, match := range marker.FindAllStringSubmatch(line, -1) {
			record, ok := records[match[1]]
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s:%d: figure %s has no record in %s", page, number+1, match[1], recordsFile))
			case match[2] != record.Value:
				problems = append(problems, fmt.Sprintf("%s:%d: figure %s says %q, but %s measured %q at commit %s",
					page, number+1, match[1], match[2], record.Command, record.Value, record.Commit))
			}
		}
	}
	if filepath.Base(page) == "README.md" {
		for _, line := range handKept(text) {
			problems = append(problems, fmt.Sprintf("%s:%d: a measured figure kept by hand: %s", page, line.number, line.text))
		}
	}
	return problems
}

type pageLine struct {
	number int
	text   string
}

// handKept returns the lines of prose that hold a figure-shaped phrase outside figure
// markers, code blocks, inline code and tables (which list settings, not measurements).
func handKept(text string) []pageLine {
	var found []pageLine
	inCode := false
	for number, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inCode = !inCode
			continue
		}
		if inCode || strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		prose := marker.ReplaceAllString(line, "")
		prose = inlineCode.ReplaceAllString(prose, "")
		if measured.MatchString(prose) {
			found = append(found, pageLine{number + 1, strings.TrimSpace(line)})
		}
	}
	return found
}

// render writes each record's value between the markers that name it.
func render(text string, records map[string]Record) string {
	return marker.ReplaceAllStringFunc(text, func(found string) string {
		name := marker.FindStringSubmatch(found)[1]
		if record, ok := records[name]; ok {
			return "<!-- figure " + name + " -->" + record.Value + "<!-- /figure -->"
		}
		return found
	})
}

// pages are the README and the pages under docs/.
func pages() ([]string, error) {
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		return nil, err
	}
	return slices.Concat([]string{"README.md"}, docs), nil
}

func readRecords() (map[string]Record, error) {
	records := map[string]Record{}
	data, err := os.ReadFile(recordsFile)
	if errors.Is(err, os.ErrNotExist) {
		return records, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &records); err != nil {
		return nil, fmt.Errorf("%s: %w", recordsFile, err)
	}
	return records, nil
}
