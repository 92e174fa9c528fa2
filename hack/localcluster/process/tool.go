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
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// ToolOutput is what a tool run to its end (RunTool) wrote.
type ToolOutput struct {
	// Stdout is what it wrote to its standard output alone: the result of a tool that prints
	// one (a rendered manifest, JSON), which its log lines on stderr would spoil.
	Stdout []byte
	// Combined is what it wrote to stdout and stderr, in the order it came: what a user reads
	// in a terminal, where a tool that logs tells what it did.
	Combined []byte
}

// ToolError is how a tool run with RunTool failed: it names the tool, its arguments and its
// exit, and holds what the tool wrote to stderr, where tools say why.
type ToolError struct {
	// Tool is the name of the tool's binary, without its folder.
	Tool string
	Args []string
	// Exit is how the tool ended (an *exec.ExitError), or why it did not start.
	Exit   error
	Stderr []byte
}

func (e *ToolError) Error() string {
	return fmt.Sprintf("%s %s: %v\n%s", e.Tool, strings.Join(e.Args, " "), e.Exit, e.Stderr)
}

// Unwrap is the exit alone, for a caller that shows what the tool wrote by other means.
func (e *ToolError) Unwrap() error { return e.Exit }

// RunTool runs binary with args in dir until it ends (or ctx does), with env as its
// environment (nil: this process's, as exec.Cmd has it), and returns what it wrote. If it
// fails, the error is a *ToolError.
func RunTool(ctx context.Context, dir string, env []string, binary string, args ...string) (ToolOutput, error) {
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	// exec copies stdout and stderr in a goroutine each: both write to combined.
	combined := &lockedBuffer{}
	cmd.Stdout = io.MultiWriter(&stdout, combined)
	cmd.Stderr = io.MultiWriter(&stderr, combined)
	err := cmd.Run()
	output := ToolOutput{Stdout: stdout.Bytes(), Combined: combined.buffer.Bytes()}
	if err != nil {
		return output, &ToolError{Tool: filepath.Base(binary), Args: args, Exit: err, Stderr: stderr.Bytes()}
	}
	return output, nil
}

// lockedBuffer is a buffer that several goroutines write to.
type lockedBuffer struct {
	mu     sync.Mutex
	buffer bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buffer.Write(p)
}
