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

// Package memorylimit tells, in the manager's log, when its memory limit is too small for
// what it holds. The manager caches every pod of the namespaces it watches; on a cluster
// larger than its limit was sized for, the Go runtime (whose soft limit, GOMEMLIMIT, is the
// container's limit) collects garbage ever harder as the live heap nears the limit, and the
// container is finally OOM-killed. Without a word in the log, that is a crash loop whose
// cause a user has to guess.
package memorylimit

import (
	"context"
	"math"
	"runtime/metrics"
	"time"

	"github.com/go-logr/logr"
)

// The message of the log line that names a too-small limit; tests look for it.
const (
	LogTooSmall = "The memory limit is too small for what the manager holds: raise the container's memory limit"
	LogEnough   = "The memory limit is enough again for what the manager holds"
)

const (
	// DefaultThreshold is the share of the limit the live heap may fill before the limit is
	// called too small. Past it the runtime spends much of its time collecting garbage, and
	// what is not heap (stacks, the runtime's own memory) has little room left.
	DefaultThreshold = 0.8
	// DefaultInterval is how often the live heap is looked at: often enough to speak
	// before an OOM kill while the caches fill, and cheap (runtime/metrics reads no heap).
	DefaultInterval = time.Second
	// repeatEvery is how often a limit that stays too small is told again, so that the log
	// of a long-running manager still shows it.
	repeatEvery = 5 * time.Minute
)

// Sample is what the runtime says of the heap and the limit.
type Sample struct {
	// LiveHeap is the heap the last garbage collection kept, in bytes.
	LiveHeap uint64
	// Limit is the runtime's soft memory limit (GOMEMLIMIT), in bytes; math.MaxInt64 when
	// there is none.
	Limit uint64
}

// TooSmall tells whether the live heap fills more than threshold of the limit. A
// manager without a limit has no limit that is too small.
func TooSmall(sample Sample, threshold float64) bool {
	if sample.Limit == 0 || sample.Limit >= math.MaxInt64 {
		return false
	}
	return float64(sample.LiveHeap) > threshold*float64(sample.Limit)
}

// Read samples the runtime now.
func Read() Sample {
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(samples)
	var sample Sample
	if samples[0].Value.Kind() == metrics.KindUint64 {
		sample.LiveHeap = samples[0].Value.Uint64()
	}
	if samples[1].Value.Kind() == metrics.KindUint64 {
		sample.Limit = samples[1].Value.Uint64()
	}
	return sample
}

// Watchdog logs when the limit becomes too small, again every few minutes while it stays
// so, and when it is enough again. It runs in every replica, leader or not: each holds
// the same caches.
type Watchdog struct {
	Log       logr.Logger
	Interval  time.Duration
	Threshold float64
	// Read samples the runtime; Read of this package unless set.
	Read func() Sample
}

// NeedLeaderElection is false: a standby replica fills the same caches as the leader.
func (w *Watchdog) NeedLeaderElection() bool { return false }

// Start looks at the heap every Interval until ctx ends.
func (w *Watchdog) Start(ctx context.Context) error {
	read := w.Read
	if read == nil {
		read = Read
	}
	ticker := time.NewTicker(w.Interval)
	defer ticker.Stop()
	var toldAt time.Time
	for {
		sample := read()
		switch tooSmall := TooSmall(sample, w.Threshold); {
		case tooSmall && (toldAt.IsZero() || time.Since(toldAt) >= repeatEvery):
			w.Log.Error(nil, LogTooSmall, "liveHeapBytes", sample.LiveHeap, "memoryLimitBytes", sample.Limit,
				"threshold", w.Threshold, "hint", "the README's Sizing paragraph (How it works) tells how to raise it")
			toldAt = time.Now()
		case !tooSmall && !toldAt.IsZero():
			w.Log.Info(LogEnough, "liveHeapBytes", sample.LiveHeap, "memoryLimitBytes", sample.Limit)
			toldAt = time.Time{}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}
