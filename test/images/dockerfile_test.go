//go:build images

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

package images

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// dockerfileStage is what the final stage of a Dockerfile declares about the image it
// builds: the parts an image's configuration and files can be checked against. The parser
// knows the instructions this project's Dockerfiles use, and fails on any other, so that a
// new instruction cannot go unchecked. (buildkit's parser would drag its dependencies into
// the operator's module.)
type dockerfileStage struct {
	from       string
	labels     map[string]string
	user       string
	workdir    string
	entrypoint []string
	cmd        []string
	// copies maps each destination of a COPY or ADD to its source: a path of the build
	// context, or "stage:path" for COPY --from=stage.
	copies map[string]string
}

// parseDockerfile returns the final stage of the Dockerfile at path.
func parseDockerfile(path string) (*dockerfileStage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var stage *dockerfileStage
	var pending string
	for number, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if pending == "" && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			pending += strings.TrimSuffix(trimmed, "\\") + " "
			continue
		}
		instruction := pending + trimmed
		pending = ""
		keyword, rest, _ := strings.Cut(instruction, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(keyword) {
		case "FROM":
			image := ""
			for _, field := range strings.Fields(rest) {
				if !strings.HasPrefix(field, "--") { // --platform=...
					image = field
					break
				}
			}
			stage = &dockerfileStage{from: image, labels: map[string]string{}, copies: map[string]string{}}
		case "ARG", "RUN":
			// Build-time only: they leave nothing in the final image's configuration.
		case "LABEL":
			key, value, ok := strings.Cut(rest, "=")
			if !ok {
				return nil, fmt.Errorf("%s:%d: LABEL %q is not key=value", path, number+1, rest)
			}
			stage.labels[key] = strings.Trim(value, `"`)
		case "USER":
			stage.user = rest
		case "WORKDIR":
			stage.workdir = rest
		case "ENTRYPOINT", "CMD":
			var args []string
			if err := json.Unmarshal([]byte(rest), &args); err != nil {
				return nil, fmt.Errorf("%s:%d: %s is not in exec (JSON) form: %w", path, number+1, keyword, err)
			}
			if strings.ToUpper(keyword) == "CMD" {
				stage.cmd = args
			} else {
				stage.entrypoint = args
			}
		case "COPY", "ADD":
			fields := strings.Fields(rest)
			from := ""
			if value, ok := strings.CutPrefix(fields[0], "--from="); ok {
				from, fields = value+":", fields[1:]
			}
			if len(fields) != 2 {
				return nil, fmt.Errorf("%s:%d: %s with %d paths; this parser knows one source and one destination", path, number+1, keyword, len(fields))
			}
			stage.copies[fields[1]] = from + fields[0]
		default:
			return nil, fmt.Errorf("%s:%d: instruction %s is not checked by these tests: teach them", path, number+1, keyword)
		}
		if stage == nil {
			return nil, fmt.Errorf("%s:%d: %s before FROM", path, number+1, keyword)
		}
	}
	if stage == nil {
		return nil, fmt.Errorf("%s has no FROM", path)
	}
	return stage, nil
}
