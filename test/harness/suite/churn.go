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

package suite

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// churnWorkers is how many pods change at once.
const churnWorkers = 2

// Churn creates and deletes friend pods all the time, until stopped, so that faults meet an
// operator at work. It ignores errors, such as those of an apiserver that is down: the churn
// must go on.
type Churn struct {
	cancel  context.CancelFunc
	workers sync.WaitGroup
	mu      sync.Mutex
	changes int
}

// StartChurn starts two workers that each pick a pod with nextPod, create it, or delete it
// (with deleteOptions) if it exists, and wait interval before the next. The churn stops at
// the end of the spec if Stop has not stopped it before.
func StartChurn(ctx context.Context, c client.Client, interval time.Duration, nextPod func() *corev1.Pod,
	deleteOptions ...client.DeleteOption) *Churn {
	ctx, cancel := context.WithCancel(ctx)
	churn := &Churn{cancel: cancel}
	for range churnWorkers {
		churn.workers.Go(func() {
			for ctx.Err() == nil {
				pod := nextPod()
				err := c.Create(ctx, pod)
				if apierrors.IsAlreadyExists(err) {
					err = c.Delete(ctx, pod, deleteOptions...)
				}
				if err == nil {
					churn.mu.Lock()
					churn.changes++
					churn.mu.Unlock()
				}
				select {
				case <-ctx.Done():
				case <-time.After(interval):
				}
			}
		})
	}
	DeferCleanup(churn.Stop)
	return churn
}

// Stop ends the churn and returns how many pods it created or deleted.
func (c *Churn) Stop() int {
	c.cancel()
	c.workers.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changes
}
