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

package harness

import (
	"fmt"
	"strings"
)

// MarkedTable reads the Markdown table of page that stands between the lines begin and end,
// which tell readers that a test checks it: each row, as its cells by the header's names.
// A row with another number of cells than the header is an error, named with the row.
func MarkedTable(page, begin, end string) ([]map[string]string, error) {
	start, stop := strings.Index(page, begin), strings.Index(page, end)
	if start < 0 || stop < start {
		return nil, fmt.Errorf("no table between %q and %q", begin, end)
	}
	var header []string
	var rows []map[string]string
	for _, line := range strings.Split(strings.TrimSpace(page[start+len(begin):stop]), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case header == nil:
			header = cells
		case strings.HasPrefix(cells[0], "---"):
		case len(cells) != len(header):
			return nil, fmt.Errorf("a row of %d cells in a table of %d columns (%s): %s", len(cells), len(header), strings.Join(header, ", "), line)
		default:
			row := map[string]string{}
			for i, cell := range cells {
				row[header[i]] = cell
			}
			rows = append(rows, row)
		}
	}
	if header == nil {
		return nil, fmt.Errorf("the table between %q and %q is empty", begin, end)
	}
	return rows, nil
}
