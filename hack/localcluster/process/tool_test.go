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
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestRunToolKeepsStdoutApartAndNamesAFailure(t *testing.T) {
	output, err := RunTool(context.Background(), t.TempDir(), nil, "/bin/sh", "-c", "echo result; echo why >&2; exit 3")
	var toolErr *ToolError
	if !errors.As(err, &toolErr) {
		t.Fatalf("error %v is not a *ToolError", err)
	}
	if string(output.Stdout) != "result\n" {
		t.Errorf("stdout %q, want only what the tool wrote there", output.Stdout)
	}
	if !strings.Contains(string(output.Combined), "result\n") || !strings.Contains(string(output.Combined), "why\n") {
		t.Errorf("combined output %q lacks stdout or stderr", output.Combined)
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Errorf("the error unwraps to %v, want the exit with code 3", errors.Unwrap(err))
	}
	if want := "sh -c echo result; echo why >&2; exit 3: exit status 3\nwhy\n"; err.Error() != want {
		t.Errorf("error %q, want %q", err.Error(), want)
	}
}

func TestRunToolSucceeds(t *testing.T) {
	output, err := RunTool(context.Background(), t.TempDir(), nil, "/bin/sh", "-c", "pwd")
	if err != nil {
		t.Fatal(err)
	}
	if len(output.Stdout) == 0 {
		t.Error("no output from pwd")
	}
}
