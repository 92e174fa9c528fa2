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
	"fmt"
	"time"
)

// Poll calls check every 100ms until it reports done, ctx ends or timeout passes. Its
// error says what it waited for and what check saw last.
func Poll(ctx context.Context, timeout time.Duration, what string, check func() (done bool, last string)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ticker := time.NewTicker(100 * time.Millisecond)
	defer ticker.Stop()
	last := "nothing yet"
	for {
		done, seen := check()
		if done {
			return nil
		}
		if seen != "" {
			last = seen
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waited %s for %s: %w; last seen: %s", timeout, what, ctx.Err(), last)
		case <-ticker.C:
		}
	}
}
