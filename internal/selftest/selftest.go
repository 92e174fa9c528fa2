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

// Package selftest shows that an installed foo-operator serves Foos, the way a user would
// see it: it makes a Foo and then its friend pod, waits for the Foo to turn happy, deletes
// the friend, waits for the Foo to turn unhappy, and removes what it made. The Helm chart's
// test hook (`helm test`) runs it as `manager selftest` in the manager's own image.
package selftest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// Options say where the self-test makes its Foo and how long it waits for the operator.
type Options struct {
	// Namespace is where the Foo and its friend are made; it must be one the operator
	// watches. Empty: a namespace of their own, made for the test and deleted after it.
	Namespace string
	// Image is the friend pod's image: one the cluster can pull (the chart gives the
	// manager's). The pod is never meant to run: a Foo needs its friend to exist, not to run.
	Image string
	// Timeout bounds each wait for the operator.
	Timeout time.Duration
	Log     logr.Logger
}

// namespacePrefix starts the name of the namespace the self-test makes for itself.
const namespacePrefix = "foo-operator-selftest-"

// neverScheduled holds the friend pod back from the scheduler: the pod exists, which is all
// a Foo asks of its friend, and takes no room on a node. On a cluster older than 1.27, which
// drops the gate, the pod runs the image's --help and ends; it still exists.
const neverScheduled = "tutorial.my.domain/selftest-friend-never-runs"

// pollInterval is how often a wait reads the Foo.
const pollInterval = 500 * time.Millisecond

// Run makes a Foo and its friend and waits, at each step, for the operator to set the Foo's
// status as the step asks. It removes what it made, whether the test passes or not, and
// returns an error that names the step the operator missed and the Foo's status as last
// read.
func Run(ctx context.Context, c client.Client, o Options) (err error) {
	namespace := o.Namespace
	if namespace == "" {
		created := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: namespacePrefix}}
		if err := c.Create(ctx, created); err != nil {
			return fmt.Errorf("creating a namespace for the self-test: %w", err)
		}
		namespace = created.Name
		o.Log.Info("Created a namespace for the self-test", "namespace", namespace)
		defer func() { err = errors.Join(err, remove(c, "Namespace", created, o.Log)) }()
	}

	// Names of their own, so that two tests (of two releases) in one namespace never meet.
	name := "selftest-" + utilrand.String(5)
	friendName := name + "-friend"
	foo := &tutorialv1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	foo.Spec.Name = friendName
	if err := c.Create(ctx, foo); err != nil {
		return fmt.Errorf("creating Foo %s: %w", klog.KObj(foo), err)
	}
	o.Log.Info("Created a Foo", "foo", klog.KObj(foo), "friend", friendName)
	defer func() { err = errors.Join(err, remove(c, "Foo", foo, o.Log)) }()
	if err := waitFor(ctx, c, foo, o, "set the Foo unhappy while its friend does not exist", tutorialv1.FriendNotFoundReason); err != nil {
		return err
	}

	friend := friendPod(namespace, friendName, o.Image)
	if err := c.Create(ctx, friend); err != nil {
		return fmt.Errorf("creating the friend pod %s: %w", klog.KObj(friend), err)
	}
	o.Log.Info("Created the friend pod", "pod", klog.KObj(friend))
	defer func() { err = errors.Join(err, remove(c, "Pod", friend, o.Log)) }()
	if err := waitFor(ctx, c, foo, o, "set the Foo happy once its friend exists", tutorialv1.FriendFoundReason); err != nil {
		return err
	}

	if err := c.Delete(ctx, friend); err != nil {
		return fmt.Errorf("deleting the friend pod %s: %w", klog.KObj(friend), err)
	}
	o.Log.Info("Deleted the friend pod", "pod", klog.KObj(friend))
	// A pod that was never scheduled is gone at once; one a node runs is terminating first.
	if err := waitFor(ctx, c, foo, o, "set the Foo unhappy once its friend is deleted",
		tutorialv1.FriendNotFoundReason, tutorialv1.FriendTerminatingReason); err != nil {
		return err
	}
	o.Log.Info("The operator serves Foos", "namespace", namespace)
	return nil
}

// waitFor waits until the operator has acted on the Foo's latest spec and its Happy
// condition has one of the reasons; on timeout, the error says what the operator was to
// do and what the Foo's status was when last read.
func waitFor(ctx context.Context, c client.Client, foo *tutorialv1.Foo, o Options, what string, reasons ...string) error {
	var last tutorialv1.Foo
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, pollInterval, o.Timeout, true, func(ctx context.Context) (bool, error) {
		var read tutorialv1.Foo
		if err := c.Get(ctx, client.ObjectKeyFromObject(foo), &read); err != nil {
			// A read cut short by the wait's own end says nothing of the Foo: keep the last.
			if ctx.Err() == nil {
				lastErr = err
			}
			return false, nil
		}
		last, lastErr = read, nil
		return reached(&last, reasons), nil
	})
	if err == nil {
		o.Log.Info("The operator did as asked", "step", what, "foo", klog.KObj(foo), "happy", last.Status.Happy)
		return nil
	}
	seen := describe(&last)
	if lastErr != nil {
		seen = "no Foo: " + lastErr.Error()
	}
	return fmt.Errorf("the operator did not %s within %s (is it running, and does it watch namespace %s?): Foo %s: %s",
		what, o.Timeout, foo.Namespace, klog.KObj(foo), seen)
}

// reached tells whether the status was computed from the Foo's latest spec and its Happy
// condition has one of the reasons.
func reached(foo *tutorialv1.Foo, reasons []string) bool {
	if foo.Status.ObservedGeneration != foo.Generation {
		return false
	}
	happy := meta.FindStatusCondition(foo.Status.Conditions, tutorialv1.HappyCondition)
	if happy == nil {
		return false
	}
	for _, reason := range reasons {
		if happy.Reason == reason {
			return true
		}
	}
	return false
}

// describe tells what a Foo's status says, for an error.
func describe(foo *tutorialv1.Foo) string {
	happy := meta.FindStatusCondition(foo.Status.Conditions, tutorialv1.HappyCondition)
	condition := "no Happy condition"
	if happy != nil {
		condition = fmt.Sprintf("Happy=%s (%s: %s)", happy.Status, happy.Reason, happy.Message)
	}
	return fmt.Sprintf("spec.name %q, status.happy %t, observedGeneration %d of generation %d, %s",
		foo.Spec.Name, foo.Status.Happy, foo.Status.ObservedGeneration, foo.Generation, condition)
}

// friendPod is a pod that exists and that no node runs; see neverScheduled. It meets the
// restricted Pod Security Standard, so that a namespace enforcing it admits the pod.
func friendPod(namespace, name, image string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.PodSpec{
			SchedulingGates: []corev1.PodSchedulingGate{{Name: neverScheduled}},
			RestartPolicy:   corev1.RestartPolicyNever,
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   ptr.To(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name:  "friend",
				Image: image,
				Args:  []string{"--help"},
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false),
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}},
		},
	}
}

// removeTimeout bounds the removal of what the self-test made, which runs even when the
// test's context has ended.
const removeTimeout = 30 * time.Second

// remove deletes an object the self-test made, in the background.
func remove(c client.Client, kind string, object client.Object, log logr.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	err := c.Delete(ctx, object, client.PropagationPolicy(metav1.DeletePropagationBackground))
	if client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("removing %s %s: %w", kind, klog.KObj(object), err)
	}
	if !apierrors.IsNotFound(err) {
		log.Info("Removed", "kind", kind, "object", klog.KObj(object))
	}
	return nil
}
