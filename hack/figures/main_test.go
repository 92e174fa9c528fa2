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

var records = map[string]Record{
	"first-run.demo": {Value: "11.1 minutes", Command: "make first-run-times", Commit: "0123456789ab"},
}

func TestCheckPageCatchesAStaleFigure(t *testing.T) {
	page := "make demo took <!-- figure first-run.demo -->8.2 minutes<!-- /figure --> on empty caches.\n"
	problems := checkPage("docs/page.md", page, records)
	want := `says "8.2 minutes", but make first-run-times measured "11.1 minutes" at commit 0123456789ab`
	if len(problems) != 1 || !strings.Contains(problems[0], want) {
		t.Errorf("a planted stale figure: problems %q", problems)
	}
	if problems := checkPage("docs/page.md", render(page, records), records); len(problems) != 0 {
		t.Errorf("the rendered page: problems %q", problems)
	}
}

func TestCheckPageCatchesAnUnrecordedFigure(t *testing.T) {
	problems := checkPage("docs/page.md", "<!-- figure nobody.measured -->3 s<!-- /figure -->\n", records)
	if len(problems) != 1 || !strings.Contains(problems[0], "figure nobody.measured has no record") {
		t.Errorf("problems %q", problems)
	}
}

func TestCheckPageCatchesAFigureTheReadmeKeepsByHand(t *testing.T) {
	readme := strings.Join([]string{
		"It took 6.1 minutes on a laptop.",                                    // kept by hand: caught
		"It took <!-- figure first-run.demo -->11.1 minutes<!-- /figure -->.", // rendered: fine
		"Set `--wait-time 180 seconds` as you like.",                          // inline code: a setting
		"| `--renew` | 10 seconds |",                                          // a table of settings
		"```sh",
		"sleep 5 minutes # a command",
		"```",
	}, "\n")
	problems := checkPage("README.md", readme, records)
	if len(problems) != 1 || !strings.Contains(problems[0], "README.md:1: a measured figure kept by hand") {
		t.Errorf("problems %q", problems)
	}
	if problems := checkPage("docs/page.md", readme, records); len(problems) != 0 {
		t.Errorf("a page under docs/ is checked for its markers only: problems %q", problems)
	}
}
