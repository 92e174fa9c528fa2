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

// Package report is the benchmark's analysis and printing, apart from the code that drives
// the clusters and the implementations: what a run measured (Report, and a Result for each
// implementation in each Scenario), the statistics of its latencies, the breakdown of its
// slowest events from an implementation's log, and the three ways it is shown: the tables
// and the verdicts on the targets printed at the end, the JSON file and the SVG plot.
//
// It reads no flags and starts nothing: the driver hands it the figures and the moments it
// measured, and it can be tested on fixed inputs.
package report
