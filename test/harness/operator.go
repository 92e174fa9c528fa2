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

package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	tutorialv1 "github.com/example/foo-operator/api/v1"
)

// LeaderElectionArgs are the manager flags of config/manager, for a manager outside a pod:
// the Lease lives in the operator's namespace, which a pod would know by itself.
var LeaderElectionArgs = []string{"--leader-elect", "--leader-election-namespace=" + OperatorNamespace}

// OperatorKubeconfig writes into dir a kubeconfig holding a fresh token of the operator's
// ServiceAccount, so that a manager reading it has exactly the permissions config/rbac grants.
func (cp *ControlPlane) OperatorKubeconfig(ctx context.Context, dir string) (string, error) {
	token, err := cp.ServiceAccountToken(ctx, OperatorNamespace, OperatorServiceAccount)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "operator.kubeconfig")
	return path, cp.WriteTokenKubeconfig(path, token)
}

// CreateNamespace creates a namespace with a generated name and returns the name.
func (cp *ControlPlane) CreateNamespace(ctx context.Context, prefix string) (string, error) {
	namespace := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}
	if err := cp.Client.Create(ctx, namespace); err != nil {
		return "", err
	}
	return namespace.Name, nil
}

// NewFoo is a Foo that wants the pod named friend as its friend.
func NewFoo(namespace, name, friend string) *tutorialv1.Foo {
	return &tutorialv1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       tutorialv1.FooSpec{Name: friend},
	}
}

// NewPod is a minimal pod. No kubelet runs it; for the operator, that it exists is enough.
func NewPod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}},
	}
}

// RestrictedPod is a pod that the restricted Pod Security level admits, running image with
// args, for a node to run.
func RestrictedPod(namespace, name, image string, args ...string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name: "main", Image: image, Args: args,
				SecurityContext: &corev1.SecurityContext{
					AllowPrivilegeEscalation: ptr.To(false),
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				},
			}},
		},
	}
}

// WrongStatuses compares the status of every Foo in namespace with the pods that exist
// there now, and describes each Foo whose status is not what the operator must show.
// An empty result means every status is right.
func (cp *ControlPlane) WrongStatuses(ctx context.Context, namespace string) ([]string, error) {
	return WrongStatuses(ctx, cp.Client, namespace)
}

// WrongStatuses compares the status of every Foo in namespace, read through reader, with
// the pods that exist there now, and describes each Foo whose status is not what the
// operator must show: computed from its latest spec (observedGeneration), happy exactly
// while its friend pod exists and is not being deleted, one Happy condition that agrees,
// with the reason that says why, and status.friend naming that very pod (its UID) while
// happy. An empty result means every status is right.
func WrongStatuses(ctx context.Context, reader client.Reader, namespace string) ([]string, error) {
	var pods metav1.PartialObjectMetadataList
	pods.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PodList"))
	if err := reader.List(ctx, &pods, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	podsByName := make(map[string]*metav1.PartialObjectMetadata, len(pods.Items))
	for i := range pods.Items {
		podsByName[pods.Items[i].Name] = &pods.Items[i]
	}
	var foos tutorialv1.FooList
	if err := reader.List(ctx, &foos, client.InNamespace(namespace)); err != nil {
		return nil, err
	}
	var wrong []string
	for i := range foos.Items {
		if problem := wrongStatus(&foos.Items[i], podsByName[foos.Items[i].Spec.Name]); problem != "" {
			wrong = append(wrong, foos.Items[i].Name+": "+problem)
		}
	}
	sort.Strings(wrong)
	return wrong, nil
}

// wrongStatus says what is wrong with the status of foo, whose friend pod is friend (nil
// when there is none), or "" when nothing is.
func wrongStatus(foo *tutorialv1.Foo, friend *metav1.PartialObjectMetadata) string {
	wantHappy, wantReason := false, tutorialv1.FriendNotFoundReason
	switch {
	case friend != nil && friend.DeletionTimestamp != nil:
		wantReason = tutorialv1.FriendTerminatingReason
	case friend != nil:
		wantHappy, wantReason = true, tutorialv1.FriendFoundReason
	}
	status := foo.Status
	condition := meta.FindStatusCondition(status.Conditions, tutorialv1.HappyCondition)
	switch {
	case status.ObservedGeneration != foo.Generation:
		return fmt.Sprintf("observedGeneration %d, generation %d", status.ObservedGeneration, foo.Generation)
	case status.Happy != wantHappy:
		return fmt.Sprintf("happy %v, want %v for friend %q", status.Happy, wantHappy, foo.Spec.Name)
	case condition == nil || len(status.Conditions) != 1:
		return fmt.Sprintf("conditions %+v, want one %s condition", status.Conditions, tutorialv1.HappyCondition)
	case (condition.Status == metav1.ConditionTrue) != wantHappy || condition.Reason != wantReason:
		return fmt.Sprintf("%s condition %s with reason %s, want happy %v with reason %s",
			tutorialv1.HappyCondition, condition.Status, condition.Reason, wantHappy, wantReason)
	case wantHappy && (status.Friend == nil || status.Friend.Name != friend.Name || status.Friend.UID != friend.UID):
		return fmt.Sprintf("status.friend %+v, want pod %s with UID %s", status.Friend, friend.Name, friend.UID)
	case !wantHappy && status.Friend != nil:
		return fmt.Sprintf("status.friend %+v while unhappy", status.Friend)
	}
	return ""
}

// Summary shortens a list of problems for a failure message.
func Summary(problems []string) string {
	const shown = 10
	if len(problems) <= shown {
		return strings.Join(problems, "\n")
	}
	return fmt.Sprintf("%s\n... and %d more", strings.Join(problems[:shown], "\n"), len(problems)-shown)
}
