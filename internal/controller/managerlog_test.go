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

package controller

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sync"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	crzap "sigs.k8s.io/controller-runtime/pkg/log/zap"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// managerLog keeps every line the suite's manager logs, at every verbosity, as JSON, so that
// a spec can tell which Foo the controller reconciled: controller-runtime's metrics count
// the reconciles of the whole controller, whatever Foo they were for.
type managerLog struct {
	mu    sync.Mutex
	lines bytes.Buffer
}

func (l *managerLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lines.Write(p)
}

func (l *managerLog) Sync() error { return nil }

// alsoTo is the zap option that tees the manager's log into l besides its usual output.
func (l *managerLog) alsoTo() crzap.Opts {
	everything := zap.LevelEnablerFunc(func(zapcore.Level) bool { return true })
	keep := zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(l), everything)
	return crzap.RawZapOpts(zap.WrapCore(func(core zapcore.Core) zapcore.Core { return zapcore.NewTee(core, keep) }))
}

// reconciled counts the reconciles of foo that have finished, from the line the reconciler
// logs at their end.
func (l *managerLog) reconciled(foo *tutorialv1.Foo) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	count := 0
	scanner := bufio.NewScanner(bytes.NewReader(l.lines.Bytes()))
	scanner.Buffer(nil, 1<<20)
	for scanner.Scan() {
		var line struct {
			Msg       string `json:"msg"`
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
		}
		if json.Unmarshal(scanner.Bytes(), &line) == nil &&
			line.Msg == LogReconciled && line.Namespace == foo.Namespace && line.Name == foo.Name {
			count++
		}
	}
	return count
}
