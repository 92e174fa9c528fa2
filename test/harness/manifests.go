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
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/hack/localcluster/resources"
)

// Names of what config/default installs.
const (
	OperatorNamespace      = "foo-operator-system"
	OperatorServiceAccount = "foo-operator-controller-manager"
	OperatorDeployment     = "foo-operator-controller-manager"
	MetricsReaderRole      = "foo-operator-metrics-reader"
	ManagerRole            = "foo-operator-manager-role"
	// LeaderElectionLease is the Lease the manager's replicas compete for.
	LeaderElectionLease = "foo-operator.tutorial.my.domain"
)

// Render builds the kustomization in config/<dir> with the project's kustomize, named by
// the KUSTOMIZE environment variable (set by make), and returns its objects in order.
func Render(dir string) ([]*unstructured.Unstructured, error) {
	kustomize := os.Getenv("KUSTOMIZE")
	if kustomize == "" {
		return nil, errors.New("KUSTOMIZE must name the kustomize binary: run the tests with make")
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kustomize, "build", filepath.Join(RepoRoot, "config", dir))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("kustomize build config/%s: %w\n%s", dir, err, stderr.String())
	}
	objects, err := resources.Decode(&stdout)
	if err != nil {
		return nil, fmt.Errorf("decoding config/%s: %w", dir, err)
	}
	return objects, nil
}

// Find returns the object of the given kind and name among objects, or nil.
func Find(objects []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	for _, object := range objects {
		if object.GetKind() == kind && object.GetName() == name {
			return object
		}
	}
	return nil
}

// InstallOperator creates what `make deploy` would apply from config/default, except the
// CRD, which the control plane already has, and the Deployment, whose pod the tests replace
// with manager processes: no kubelet runs here. It returns every rendered object.
func (cp *ControlPlane) InstallOperator(ctx context.Context) ([]*unstructured.Unstructured, error) {
	objects, err := Render("default")
	if err != nil {
		return nil, err
	}
	for _, object := range objects {
		switch object.GetKind() {
		case "CustomResourceDefinition", "Deployment":
			continue
		}
		if err := cp.Client.Create(ctx, object.DeepCopy()); err != nil {
			return nil, fmt.Errorf("creating %s %s: %w", object.GetKind(), object.GetName(), err)
		}
	}
	return objects, nil
}

// DeployDefault creates everything config/default renders, as `make deploy` applies it, with
// the manager Deployment running image in replicas pods, and returns the rendered objects.
func DeployDefault(ctx context.Context, c client.Client, image string, replicas int64) ([]*unstructured.Unstructured, error) {
	objects, err := Render("default")
	if err != nil {
		return nil, err
	}
	for _, object := range objects {
		object = object.DeepCopy()
		if object.GetKind() == "Deployment" && object.GetName() == OperatorDeployment {
			containers, _, _ := unstructured.NestedSlice(object.Object, "spec", "template", "spec", "containers")
			containers[0].(map[string]any)["image"] = image
			if err := unstructured.SetNestedSlice(object.Object, containers, "spec", "template", "spec", "containers"); err != nil {
				return nil, err
			}
			if err := unstructured.SetNestedField(object.Object, replicas, "spec", "replicas"); err != nil {
				return nil, err
			}
		}
		if err := c.Create(ctx, object); err != nil {
			return nil, fmt.Errorf("creating %s %s: %w", object.GetKind(), object.GetName(), err)
		}
	}
	return objects, nil
}

// ManagerImage returns the image of the manager container of the operator's Deployment among
// objects (a rendered installer).
func ManagerImage(objects []*unstructured.Unstructured) (string, error) {
	for _, object := range objects {
		if object.GetKind() != "Deployment" {
			continue
		}
		var deployment appsv1.Deployment
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, &deployment); err != nil {
			return "", fmt.Errorf("decoding Deployment %s: %w", object.GetName(), err)
		}
		for _, container := range deployment.Spec.Template.Spec.Containers {
			if container.Name == "manager" {
				return container.Image, nil
			}
		}
	}
	return "", errors.New("no Deployment with a manager container")
}
