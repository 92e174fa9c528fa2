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

package process

import (
	"fmt"
	"io"
	"time"
)

// Progress prints one line per phase of a long start or stop, with the time it took.
type Progress struct {
	W io.Writer
}

// Phase runs do and prints what it did, the note it returns and its time, or its error.
func (p Progress) Phase(what string, do func() (note string, err error)) error {
	start := time.Now()
	note, err := do()
	elapsed := time.Since(start).Round(100 * time.Millisecond)
	if p.W == nil {
		return err
	}
	switch {
	case err != nil:
		_, _ = fmt.Fprintf(p.W, "==> %s: failed after %s\n", what, elapsed)
	case note != "":
		_, _ = fmt.Fprintf(p.W, "==> %s (%s): %s\n", what, elapsed, note)
	default:
		_, _ = fmt.Fprintf(p.W, "==> %s (%s)\n", what, elapsed)
	}
	return err
}

// Discard is the progress of a caller that wants no lines.
var Discard = Progress{W: io.Discard}
