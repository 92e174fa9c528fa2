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
	"fmt"
	"html"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
)

// The plot is plain SVG written here, so that the benchmark needs no plotting library.

var colors = map[string]string{Ours: "#1f77b4", Naive: "#d62728", Floor: "#2ca02c"}

const (
	panelWidth  = 460.0
	panelHeight = 300.0
	columns     = 2
)

// series is one line of a chart.
type series struct {
	name   string
	color  string
	dashed bool
	step   bool
	points [][2]float64
}

// chart is one panel: lines over two axes, each linear or logarithmic.
type chart struct {
	title, xLabel, yLabel string
	xLog, yLog            bool
	series                []series
}

// SavePlot writes to path an SVG of the latency CDF of every scenario, then of memory and
// CPU per event against the number of pods for each number of Foos.
func (r *Report) SavePlot(path string) error {
	var charts []chart
	for _, s := range r.Scenarios {
		c := chart{
			title:  fmt.Sprintf("Latency CDF, P=%d F=%d E=%d, run %d", s.Pods, s.Foos, s.Events, s.Run),
			xLabel: "pod event to Foo status seen (ms)", yLabel: "fraction of events", xLog: true,
		}
		for _, result := range s.Results {
			line := series{name: result.Implementation, color: colors[result.Implementation], step: true}
			for i, latency := range result.LatenciesMillis {
				line.points = append(line.points, [2]float64{latency, float64(i+1) / float64(len(result.LatenciesMillis))})
			}
			c.series = append(c.series, line)
		}
		charts = append(charts, c)
	}
	// One pair of charts per number of Foos, or a single pair when F grows with P; first
	// runs only.
	groups := map[int]bool{}
	group := func(s *Scenario) int {
		if r.FoosPerPod > 0 {
			return 0
		}
		return s.Foos
	}
	for _, s := range r.Scenarios {
		groups[group(s)] = true
	}
	for _, f := range slices.Sorted(maps.Keys(groups)) {
		foos := fmt.Sprintf("F=%d", f)
		if r.FoosPerPod > 0 {
			foos = fmt.Sprintf("F=%g×P", r.FoosPerPod)
		}
		memory := chart{title: fmt.Sprintf("Memory vs P, %s: peak RSS, heap after GC (dashed)", foos), xLabel: "pods (P)", yLabel: "MiB", yLog: true}
		cpu := chart{title: fmt.Sprintf("CPU per pod event vs P, %s", foos), xLabel: "pods (P)", yLabel: "CPU ms per event", yLog: true}
		for _, name := range []string{Ours, Naive, Floor} {
			rss := series{name: name + " RSS", color: colors[name]}
			heap := series{name: name + " heap", color: colors[name], dashed: true}
			perEvent := series{name: name, color: colors[name]}
			for _, s := range r.Scenarios {
				if result := s.result(name); result != nil && group(s) == f && s.Run == 1 {
					p := float64(s.Pods)
					rss.points = append(rss.points, [2]float64{p, float64(result.PeakRSSBytes) / (1 << 20)})
					heap.points = append(heap.points, [2]float64{p, float64(result.PeakHeapBytes) / (1 << 20)})
					perEvent.points = append(perEvent.points, [2]float64{p, max(result.CPUPerEventMillis, 0.01)})
				}
			}
			for _, line := range []*series{&rss, &heap, &perEvent} {
				slices.SortFunc(line.points, func(a, b [2]float64) int { return int(a[0] - b[0]) })
			}
			if len(rss.points) > 0 {
				memory.series = append(memory.series, rss, heap)
				cpu.series = append(cpu.series, perEvent)
			}
		}
		charts = append(charts, memory, cpu)
	}

	rows := (len(charts) + columns - 1) / columns
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n",
		panelWidth*columns, panelHeight*float64(rows))
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, c := range charts {
		c.render(&b, panelWidth*float64(i%columns), panelHeight*float64(i/columns))
	}
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// axis maps values to pixels on a linear or logarithmic scale.
type axis struct {
	log      bool
	min, max float64
	from, to float64
}

func newAxis(values []float64, log bool, from, to float64) axis {
	a := axis{log: log, from: from, to: to, min: math.Inf(1), max: math.Inf(-1)}
	for _, v := range values {
		if log && v <= 0 {
			continue
		}
		a.min, a.max = min(a.min, v), max(a.max, v)
	}
	if math.IsInf(a.min, 1) {
		a.min, a.max = 1, 10
	}
	if log {
		a.min = math.Pow(10, math.Floor(math.Log10(a.min)))
		a.max = math.Pow(10, math.Ceil(math.Log10(a.max*1.0001)))
	} else {
		step := niceStep((a.max - min(a.min, 0)) / 5)
		a.min = 0
		a.max = math.Ceil(a.max/step) * step
		if a.max == 0 {
			a.max = 1
		}
	}
	return a
}

func (a axis) pixel(v float64) float64 {
	var f float64
	if a.log {
		f = (math.Log10(max(v, a.min)) - math.Log10(a.min)) / (math.Log10(a.max) - math.Log10(a.min))
	} else {
		f = (v - a.min) / (a.max - a.min)
	}
	return a.from + f*(a.to-a.from)
}

func (a axis) ticks() []float64 {
	var ticks []float64
	if a.log {
		for decade := a.min; decade <= a.max*1.0001; decade *= 10 {
			for _, m := range []float64{1, 2, 5} {
				if v := decade * m; v <= a.max*1.0001 {
					ticks = append(ticks, v)
				}
			}
		}
		return ticks
	}
	step := niceStep((a.max - a.min) / 5)
	for v := a.min; v <= a.max+step/2; v += step {
		ticks = append(ticks, v)
	}
	return ticks
}

// niceStep rounds span up to 1, 2 or 5 times a power of ten.
func niceStep(span float64) float64 {
	if span <= 0 {
		return 1
	}
	power := math.Pow(10, math.Floor(math.Log10(span)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*power >= span {
			return m * power
		}
	}
	return 10 * power
}

func (c chart) render(b *strings.Builder, x0, y0 float64) {
	left, right, top, bottom := x0+60, x0+panelWidth-20, y0+30, y0+panelHeight-70
	var xs, ys []float64
	for _, s := range c.series {
		for _, p := range s.points {
			xs, ys = append(xs, p[0]), append(ys, p[1])
		}
	}
	x, y := newAxis(xs, c.xLog, left, right), newAxis(ys, c.yLog, bottom, top)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="12" font-weight="bold">%s</text>`+"\n", left, y0+18, html.EscapeString(c.title))
	for _, t := range x.ticks() {
		px := x.pixel(t)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", px, top, px, bottom)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", px, bottom+14, tickLabel(t))
	}
	for _, t := range y.ticks() {
		py := y.pixel(t)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, py, right, py)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-4, py+4, tickLabel(t))
	}
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#333"/>`+"\n", left, top, right-left, bottom-top)
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", (left+right)/2, bottom+30, html.EscapeString(c.xLabel))
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" transform="rotate(-90 %.1f %.1f)">%s</text>`+"\n",
		x0+14, (top+bottom)/2, x0+14, (top+bottom)/2, html.EscapeString(c.yLabel))
	for i, s := range c.series {
		var path strings.Builder
		for j, p := range s.points {
			px, py := x.pixel(p[0]), y.pixel(p[1])
			switch {
			case j == 0 && s.step:
				fmt.Fprintf(&path, "M%.1f %.1f V%.1f", px, bottom, py)
			case j == 0:
				fmt.Fprintf(&path, "M%.1f %.1f", px, py)
			case s.step:
				fmt.Fprintf(&path, " H%.1f V%.1f", px, py)
			default:
				fmt.Fprintf(&path, " L%.1f %.1f", px, py)
			}
		}
		dash := ""
		if s.dashed {
			dash = ` stroke-dasharray="5 3"`
		}
		if path.Len() > 0 {
			fmt.Fprintf(b, `<path d="%s" fill="none" stroke="%s" stroke-width="1.6"%s/>`+"\n", path.String(), s.color, dash)
			for _, p := range s.points {
				if !s.step {
					fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`+"\n", x.pixel(p[0]), y.pixel(p[1]), s.color)
				}
			}
		}
		lx, ly := left+float64(i%3)*130, bottom+44+float64(i/3)*13
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", lx, ly-4, lx+18, ly-4, s.color, dash)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", lx+22, ly, html.EscapeString(s.name))
	}
}

func tickLabel(v float64) string {
	switch {
	case v >= 1000 && math.Mod(v, 1000) == 0:
		return fmt.Sprintf("%.0fk", v/1000)
	case v >= 1 || v == 0:
		return fmt.Sprintf("%g", v)
	default:
		return fmt.Sprintf("%.2g", v)
	}
}
