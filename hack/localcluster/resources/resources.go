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

package resources

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/hack/localcluster/process"
)

// Create creates, through the apiserver of config, the objects of a stream of YAML
// manifests, what names it in errors; objects that exist already are left as they are.
func Create(ctx context.Context, config *rest.Config, manifest []byte, what string) error {
	objects, err := Decode(bytes.NewReader(manifest))
	if err != nil {
		return fmt.Errorf("decoding %s: %w", what, err)
	}
	// A new client for each manifest: its REST mapping discovers the kinds of the CRDs
	// created before.
	writer, err := client.New(config, client.Options{})
	if err != nil {
		return err
	}
	for _, object := range objects {
		if err := writer.Create(ctx, object); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %s %s of %s: %w", object.GetKind(), object.GetName(), what, err)
		}
	}
	return nil
}

// Decode decodes a stream of YAML or JSON manifests, skipping empty documents.
func Decode(stream io.Reader) ([]*unstructured.Unstructured, error) {
	decoder := utilyaml.NewYAMLOrJSONDecoder(stream, 4096)
	var objects []*unstructured.Unstructured
	for {
		object := &unstructured.Unstructured{}
		if err := decoder.Decode(&object.Object); errors.Is(err, io.EOF) {
			return objects, nil
		} else if err != nil {
			return nil, err
		}
		if len(object.Object) > 0 {
			objects = append(objects, object)
		}
	}
}

// WaitDeploymentAvailable waits until a Deployment has all its replicas updated and
// available; its error says what the Deployment and its pods showed last.
func WaitDeploymentAvailable(ctx context.Context, clientset kubernetes.Interface, namespace, name string, timeout time.Duration) error {
	return process.Poll(ctx, timeout, "Deployment "+namespace+"/"+name+" to be available", func() (bool, string) {
		deployment, err := clientset.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		want := int32(1)
		if deployment.Spec.Replicas != nil {
			want = *deployment.Spec.Replicas
		}
		status := deployment.Status
		if status.ObservedGeneration >= deployment.Generation && status.UpdatedReplicas == want &&
			status.AvailableReplicas == want && status.Replicas == want {
			return true, ""
		}
		return false, fmt.Sprintf("%d/%d available; pods: %s", status.AvailableReplicas, want,
			DescribePods(ctx, clientset, namespace, metav1.FormatLabelSelector(deployment.Spec.Selector)))
	})
}

// DescribePods says, for a failure message, what the pods matching selector in namespace
// are doing: phase, and each container's state with its reason and message.
func DescribePods(ctx context.Context, clientset kubernetes.Interface, namespace, selector string) string {
	pods, err := clientset.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return err.Error()
	}
	if len(pods.Items) == 0 {
		return "none"
	}
	var out []string
	for _, pod := range pods.Items {
		out = append(out, DescribePod(&pod))
	}
	return strings.Join(out, "; ")
}

// DescribePod says what a pod is doing, naming the cause a kubelet gives for a container
// that does not run (ErrImagePull, CrashLoopBackOff, CreateContainerConfigError...).
func DescribePod(pod *corev1.Pod) string {
	parts := []string{pod.Name + " " + string(pod.Status.Phase)}
	for _, condition := range pod.Status.Conditions {
		if condition.Status != corev1.ConditionTrue && condition.Message != "" {
			parts = append(parts, fmt.Sprintf("%s=%s (%s)", condition.Type, condition.Status, condition.Message))
		}
	}
	statuses := append(append([]corev1.ContainerStatus(nil), pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...)
	for _, status := range statuses {
		switch {
		case status.State.Waiting != nil:
			parts = append(parts, fmt.Sprintf("%s waiting: %s %s", status.Name, status.State.Waiting.Reason, status.State.Waiting.Message))
		case status.State.Terminated != nil:
			parts = append(parts, fmt.Sprintf("%s terminated: %s exit %d %s", status.Name, status.State.Terminated.Reason,
				status.State.Terminated.ExitCode, status.State.Terminated.Message))
		case status.State.Running != nil:
			parts = append(parts, fmt.Sprintf("%s running (ready %v, restarts %d)", status.Name, status.Ready, status.RestartCount))
		}
	}
	return strings.Join(parts, ", ")
}

// WaitCRDsEstablished waits, at most timeout for each, until every CRD of manifest is
// established, so that objects of its kinds can be created.
func WaitCRDsEstablished(ctx context.Context, config *rest.Config, manifest []byte, timeout time.Duration) error {
	objects, err := Decode(bytes.NewReader(manifest))
	if err != nil {
		return err
	}
	for _, object := range objects {
		if err := WaitCondition(ctx, config, "apiextensions.k8s.io/v1", "CustomResourceDefinition", "", object.GetName(),
			timeout, ConditionTrue(string(apiextensionsv1.Established))); err != nil {
			return err
		}
	}
	return nil
}

// WaitCondition waits, at most timeout, until ready says the object of kind kind named name
// is ready; its error says what ready saw last.
func WaitCondition(ctx context.Context, config *rest.Config, apiVersion, kind, namespace, name string,
	timeout time.Duration, ready func(*unstructured.Unstructured) (bool, string)) error {
	reader, err := client.New(config, client.Options{})
	if err != nil {
		return err
	}
	what := kind + " " + name
	if namespace != "" {
		what = kind + " " + namespace + "/" + name
	}
	return process.Poll(ctx, timeout, what+" to be ready", func() (bool, string) {
		object := &unstructured.Unstructured{}
		object.SetAPIVersion(apiVersion)
		object.SetKind(kind)
		if err := reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, object); err != nil {
			return false, err.Error()
		}
		return ready(object)
	})
}

// ConditionTrue is ready when the object's status condition conditionType is True.
func ConditionTrue(conditionType string) func(*unstructured.Unstructured) (bool, string) {
	return func(object *unstructured.Unstructured) (bool, string) {
		conditions, _, _ := unstructured.NestedSlice(object.Object, "status", "conditions")
		for _, entry := range conditions {
			condition, _ := entry.(map[string]any)
			if condition["type"] == conditionType {
				return condition["status"] == "True", fmt.Sprintf("%s=%v: %v", conditionType, condition["status"], condition["message"])
			}
		}
		return false, "no " + conditionType + " condition yet"
	}
}
