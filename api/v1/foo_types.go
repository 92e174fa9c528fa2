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

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// HappyCondition is the type of the condition that tells whether a Foo's friend pod exists.
// Its status mirrors status.happy; its reason and message say why.
const HappyCondition = "Happy"

// Reasons of the Happy condition.
const (
	// FriendFoundReason: a pod named spec.name exists in the Foo's namespace.
	FriendFoundReason = "FriendFound"

	// FriendNotFoundReason: no pod named spec.name exists in the Foo's namespace.
	FriendNotFoundReason = "FriendNotFound"

	// FriendTerminatingReason: the pod named spec.name exists but is being deleted,
	// so it no longer counts as a friend.
	FriendTerminatingReason = "FriendTerminating"
)

// HoldUpgradesAnnotation, set on any Foo, asks that the operator not be upgraded: while a
// Foo carries it, the operator reports Upgradeable=False to OLM, which then holds back new
// versions. Its value says why, for whoever reads the OperatorCondition; remove it to let
// upgrades proceed.
const HoldUpgradesAnnotation = "tutorial.my.domain/hold-upgrades"

// FooSpec is the desired state of a Foo: which pod it wants as a friend.
type FooSpec struct {
	// name is the name of the friend pod. The pod is looked up in the Foo's own
	// namespace; a pod of that name in another namespace does not count. The
	// value must be a valid pod name: a DNS-1123 subdomain of at most 253
	// lowercase letters, digits, '-' and '.', starting and ending with a letter
	// or digit. It may be changed at any time; the Foo then looks for the new
	// friend.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')",message="must be a valid pod name: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit (for example 'jack' or 'web-0.backup')"
	// +operator-sdk:csv:customresourcedefinitions:type=spec,displayName="Friend pod name",xDescriptors="urn:alm:descriptor:com.tectonic.ui:text"
	Name string `json:"name"`
}

// FooStatus is the observed state of a Foo, recomputed by the operator from the
// pods that exist. Users do not write it; a value written by anyone else is
// replaced on the next reconcile.
type FooStatus struct {
	// happy is true while a pod named spec.name exists in the Foo's namespace and
	// is not being deleted, and false otherwise.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Happy",xDescriptors="urn:alm:descriptor:text"
	Happy bool `json:"happy"`

	// friend identifies the pod the Foo counts as its friend. It is set while the
	// Foo is happy and absent otherwise.
	// +optional
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Friend pod",xDescriptors="urn:alm:descriptor:text"
	Friend *FriendReference `json:"friend,omitempty"`

	// observedGeneration is the metadata.generation of the Foo that this status
	// was computed from. When it is lower than metadata.generation, the operator
	// has not yet acted on the latest spec.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Observed generation",xDescriptors="urn:alm:descriptor:text"
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions describe the Foo's state in the standard Kubernetes form. The
	// Happy condition carries the same truth as status.happy, with a reason
	// (FriendFound, FriendNotFound or FriendTerminating), a human-readable
	// message, and the time of the last change.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +kubebuilder:validation:MaxItems=8
	// +operator-sdk:csv:customresourcedefinitions:type=status,displayName="Conditions",xDescriptors="urn:alm:descriptor:io.kubernetes.conditions"
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// FriendReference identifies a friend pod in the Foo's namespace.
type FriendReference struct {
	// name is the name of the pod; it equals the Foo's spec.name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// uid is the UID of the pod. A pod deleted and created again under the same name
	// has a new UID, so a change here means the friend was replaced.
	// +required
	UID types.UID `json:"uid"`
}

// Foo is happy while its friend, a pod named spec.name in the same namespace,
// exists. The operator keeps status.happy and the Happy condition up to date as
// pods come and go and as spec.name changes.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=fo,categories=tutorial
// +kubebuilder:printcolumn:name="Friend",type=string,JSONPath=`.spec.name`,description="Name of the friend pod in the Foo's namespace"
// +kubebuilder:printcolumn:name="Happy",type=boolean,JSONPath=`.status.happy`,description="Whether the friend pod exists"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +operator-sdk:csv:customresourcedefinitions:displayName="Foo",resources={{Pod,v1,""}}
type Foo struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec names the Foo's friend pod.
	// +required
	Spec FooSpec `json:"spec"`

	// status is the observed state, written only by the operator.
	// +optional
	Status FooStatus `json:"status,omitempty"`
}

// FooList is a list of Foos.
// +kubebuilder:object:root=true
type FooList struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard list metadata.
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	// items are the Foos in the list.
	Items []Foo `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Foo{}, &FooList{})
}
