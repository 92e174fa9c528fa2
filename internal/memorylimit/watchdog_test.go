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

package memorylimit

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
)

const mebibyte = 1 << 20

func TestTooSmall(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sample Sample
		want   bool
	}{
		{"no limit", Sample{LiveHeap: 900 * mebibyte, Limit: math.MaxInt64}, false},
		{"limit not read", Sample{LiveHeap: 900 * mebibyte}, false},
		{"the heap well under the limit", Sample{LiveHeap: 150 * mebibyte, Limit: 256 * mebibyte}, false},
		{"the heap at the threshold", Sample{LiveHeap: 200 * mebibyte, Limit: 250 * mebibyte}, false},
		{"the heap past the threshold", Sample{LiveHeap: 201 * mebibyte, Limit: 250 * mebibyte}, true},
		{"the heap past the limit", Sample{LiveHeap: 300 * mebibyte, Limit: 256 * mebibyte}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := TooSmall(tc.sample, DefaultThreshold); got != tc.want {
				t.Errorf("TooSmall(%+v, %v) = %v, want %v", tc.sample, DefaultThreshold, got, tc.want)
			}
		})
	}
}

func TestReadSeesTheRuntime(t *testing.T) {
	runtime.GC() // the live heap is measured by a collection
	sample := Read()
	limit := debug.SetMemoryLimit(-1)
	if sample.LiveHeap == 0 || sample.Limit != uint64(limit) {
		t.Fatalf("Read() = %+v, want a live heap and the runtime's limit, %d", sample, limit)
	}
}

// The watchdog speaks when the limit becomes too small and when it is enough again, not at
// every look in between.
func TestWatchdogTellsTransitions(t *testing.T) {
	samples := []Sample{
		{LiveHeap: 100 * mebibyte, Limit: 256 * mebibyte},
		{LiveHeap: 230 * mebibyte, Limit: 256 * mebibyte},
		{LiveHeap: 240 * mebibyte, Limit: 256 * mebibyte},
		{LiveHeap: 250 * mebibyte, Limit: 256 * mebibyte},
		{LiveHeap: 120 * mebibyte, Limit: 256 * mebibyte},
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	looks := 0
	var logged []string
	watchdog := &Watchdog{
		Log:      funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{}),
		Interval: time.Millisecond, Threshold: DefaultThreshold,
		Read: func() Sample {
			sample := samples[min(looks, len(samples)-1)]
			if looks++; looks >= len(samples) {
				cancel()
			}
			return sample
		},
	}
	if err := watchdog.Start(ctx); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if len(logged) != 2 || !strings.Contains(logged[0], LogTooSmall) || !strings.Contains(logged[1], LogEnough) {
		t.Fatalf("the watchdog logged %q, want one line %q, then one %q", logged, LogTooSmall, LogEnough)
	}
	for _, want := range []string{`"liveHeapBytes"=241172480`, `"memoryLimitBytes"=268435456`} {
		if !strings.Contains(logged[0], want) {
			t.Errorf("the line telling of a too-small limit, %q, does not hold %s", logged[0], want)
		}
	}
}

// TestWatchdogTellsAgainEveryFiveMinutes runs the watchdog on synctest's fake clock: a limit
// that stays too small is told at once and again each time repeatEvery has passed, not at
// every look; told enough again once, when it is; and too small anew at once.
func TestWatchdogTellsAgainEveryFiveMinutes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var lines []string
		logger := funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{})
		tooSmall := Sample{LiveHeap: 300 * mebibyte, Limit: 256 * mebibyte}
		enough := Sample{LiveHeap: 100 * mebibyte, Limit: 256 * mebibyte}
		sample := tooSmall
		watchdog := &Watchdog{Log: logger, Interval: time.Second, Threshold: DefaultThreshold, Read: func() Sample { return sample }}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- watchdog.Start(ctx) }()

		told := func(message string) int {
			count := 0
			for _, line := range lines {
				if strings.Contains(line, message) {
					count++
				}
			}
			return count
		}
		expect := func(at string, tooSmallLines, enoughLines int) {
			t.Helper()
			synctest.Wait()
			if got := told(LogTooSmall); got != tooSmallLines {
				t.Errorf("%s: %d lines say the limit is too small, want %d: %q", at, got, tooSmallLines, lines)
			}
			if got := told(LogEnough); got != enoughLines {
				t.Errorf("%s: %d lines say it is enough again, want %d: %q", at, got, enoughLines, lines)
			}
		}

		expect("at the start", 1, 0)
		time.Sleep(repeatEvery - 2*time.Second)
		expect("a look before five minutes", 1, 0)
		time.Sleep(2 * time.Second)
		expect("five minutes on", 2, 0)
		time.Sleep(repeatEvery)
		expect("ten minutes on", 3, 0)

		sample = enough
		time.Sleep(time.Second)
		expect("enough again", 3, 1)
		time.Sleep(repeatEvery)
		expect("five minutes of enough", 3, 1)

		sample = tooSmall
		time.Sleep(time.Second)
		expect("too small anew", 4, 1)

		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start returned %v when its context ended", err)
		}
	})
}
