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

package report

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// plotOf saves the plot of report and returns the SVG, and the text of its <text> elements.
func plotOf(t *testing.T, report *Report) (string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "results.svg")
	if err := report.SavePlot(path); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	decoder := xml.NewDecoder(strings.NewReader(string(svg)))
	inText := false
	for {
		token, err := decoder.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the plot is not well-formed XML: %v", err)
		}
		switch token := token.(type) {
		case xml.StartElement:
			inText = token.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(token))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return string(svg), texts
}

// twoSizes is a report of ours and the floor at 1000 and 2000 pods, with 100 Foos each.
func twoSizes() *Report {
	scenario := func(pods int, oursRSS, floorRSS int64) *Scenario {
		return &Scenario{Pods: pods, Foos: 100, Events: 4, Run: 1, Results: []*Result{{
			Implementation: Ours, LatenciesMillis: []float64{1, 2, 5, 10},
			PeakRSSBytes: oursRSS * mib, PeakHeapBytes: 8 * mib, CPUPerEventMillis: 1,
		}, {
			Implementation: Floor, LatenciesMillis: []float64{1, 2, 4, 8},
			PeakRSSBytes: floorRSS * mib, PeakHeapBytes: 4 * mib, CPUPerEventMillis: 0.5,
		}}}
	}
	return &Report{Scenarios: []*Scenario{scenario(1000, 64, 32), scenario(2000, 70, 40)}}
}

func TestSavePlotDrawsEverySeries(t *testing.T) {
	svg, texts := plotOf(t, twoSizes())

	// Two latency CDFs, then memory and CPU against P for F=100: two rows of two panels.
	if !strings.Contains(svg, `<svg xmlns="http://www.w3.org/2000/svg" width="920" height="600"`) {
		t.Errorf("the plot is not two panels wide and two high:\n%s", svg[:min(len(svg), 200)])
	}
	for _, want := range []string{
		"Latency CDF, P=1000 F=100 E=4, run 1", "Latency CDF, P=2000 F=100 E=4, run 1",
		"Memory vs P, F=100: peak RSS, heap after GC (dashed)", "CPU per pod event vs P, F=100",
		"pod event to Foo status seen (ms)", "fraction of events", "pods (P)", "MiB", "CPU ms per event",
		Ours, Floor, "ours RSS", "ours heap", "floor RSS", "floor heap",
	} {
		if !slices.Contains(texts, want) {
			t.Errorf("the plot has no text %q; its texts are %q", want, texts)
		}
	}
	for _, text := range texts {
		if strings.Contains(text, Naive) {
			t.Errorf("the plot names %q, which the report does not hold", text)
		}
	}
	// Four CDF lines, RSS and heap of each implementation, and CPU per event of each.
	if lines := strings.Count(svg, "<path "); lines != 10 {
		t.Errorf("the plot has %d lines, want 10", lines)
	}
	// Ours' CDF in the first panel, a step at each latency: the x axis runs over the decades
	// 1 to 100 ms from pixel 60 to 440, the y axis from 0 to 1 from pixel 230 up to 30.
	if want := `d="M60.0 230.0 V180.0 H117.2 V130.0 H192.8 V80.0 H250.0 V30.0"`; !strings.Contains(svg, want) {
		t.Errorf("the plot has no CDF of ours %s", want)
	}
	// The lines against P mark each size with a point: six lines of two sizes.
	if points := strings.Count(svg, "<circle "); points != 12 {
		t.Errorf("the plot has %d points, want 12", points)
	}
	// Of ours' lines, only its heap is dashed.
	if dashed := strings.Count(svg, `stroke="#1f77b4" stroke-width="1.6" stroke-dasharray="5 3"/>`); dashed != 1 {
		t.Errorf("ours has %d dashed lines, want 1 (its heap)", dashed)
	}
}

func TestSavePlotGroupsScenariosByFoosPerPod(t *testing.T) {
	report := twoSizes()
	report.Scenarios[1].Foos = 200
	_, texts := plotOf(t, report)
	for _, want := range []string{"Memory vs P, F=100: peak RSS, heap after GC (dashed)", "Memory vs P, F=200: peak RSS, heap after GC (dashed)"} {
		if !slices.Contains(texts, want) {
			t.Errorf("with two numbers of Foos, the plot has no panel %q", want)
		}
	}

	report.FoosPerPod = 0.1
	_, texts = plotOf(t, report)
	for _, want := range []string{"Memory vs P, F=0.1×P: peak RSS, heap after GC (dashed)", "CPU per pod event vs P, F=0.1×P"} {
		if !slices.Contains(texts, want) {
			t.Errorf("with F sized from P, the plot has no panel %q; its texts are %q", want, texts)
		}
	}
	if slices.Contains(texts, "CPU per pod event vs P, F=100") {
		t.Error("with F sized from P, the plot still has a panel per number of Foos")
	}
}
