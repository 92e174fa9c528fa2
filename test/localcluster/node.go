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

package localcluster

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// nodeFiles are the settings of the node's programs, each with the reasons it differs from
// their defaults on this kind of machine.
//
//go:embed node/*
var nodeFiles embed.FS

// cgroupPrefix starts the name of every node's cgroup root, followed by the PID of the
// process that made it: a root whose maker is gone is a leftover, removed at the next start.
const cgroupPrefix = "localcluster-"

// kernelTunables are the sysctls the kubelet wants, with the values it wants. They are
// machine-wide, so the namespace binds files holding these values over their /proc/sys
// entries: the kubelet reads them as set and writes nothing to the machine.
var kernelTunables = map[string]string{
	"vm/overcommit_memory":      "1",
	"vm/panic_on_oom":           "0",
	"kernel/panic":              "10",
	"kernel/panic_on_oops":      "1",
	"kernel/keys/root_maxkeys":  "1000000",
	"kernel/keys/root_maxbytes": "25000000",
}

// node is the cluster's one node: containerd and runc, the kubelet, kube-proxy, and CoreDNS
// as a pod, all in the cluster's namespace.
type node struct {
	dir        string
	cgroupRoot string
	images     map[string]string
	// containerd and the kubelet, and how to start them again (RestartContainerd,
	// RestartKubelet).
	containerd, kubelet               *Process
	containerdOptions, kubeletOptions ProcessOptions
}

// setUpNamespace prepares the namespace's mounts and network. The node keeps the paths it
// expects while writing only into dir: /var/lib and /var/log are bound from there, /run is
// a private tmpfs, /etc/hosts and /etc/resolv.conf are the node's own.
func setUpNamespace(ctx context.Context, ns *Namespace, dir string) error {
	for _, sub := range []string{"var-lib", "var-log", "etc", "sysctl"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	hosts := fmt.Sprintf("127.0.0.1 localhost\n%s %s\n", nodeIP, nodeName)
	// No nameserver answers here: the cluster has no route out. CoreDNS answers for the
	// cluster's names; pods with dnsPolicy Default get this file.
	resolv := "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"
	files := map[string]string{"etc/hosts": hosts, "etc/resolv.conf": resolv}
	for name, value := range kernelTunables {
		files["sysctl/"+strings.ReplaceAll(name, "/", ".")] = value + "\n"
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	steps := [][]string{
		// Mounts made from here on are shared within the namespace (the kubelet's volume
		// mounts must reach the containers) and, private at its root, never leave it.
		{"mount", "--make-rshared", "/"},
		{"mount", "--bind", filepath.Join(dir, "etc/hosts"), "/etc/hosts"},
		{"mount", "--bind", filepath.Join(dir, "etc/resolv.conf"), "/etc/resolv.conf"},
		{"mount", "-t", "tmpfs", "-o", "mode=0755", "tmpfs", "/run"},
		{"mount", "--bind", filepath.Join(dir, "var-lib"), "/var/lib"},
		{"mount", "--bind", filepath.Join(dir, "var-log"), "/var/log"},
	}
	names := make([]string, 0, len(kernelTunables))
	for name := range kernelTunables {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		value := filepath.Join(dir, "sysctl", strings.ReplaceAll(name, "/", "."))
		steps = append(steps, []string{"mount", "--bind", "-o", "ro", value, "/proc/sys/" + name})
	}
	steps = append(steps,
		[]string{"ip", "link", "set", "lo", "up"},
		// The node's interface: a veth pair whose both ends stay inside (this kernel has no
		// dummy interface). No default route: nothing leaves the namespace.
		[]string{"ip", "link", "add", "node0", "type", "veth", "peer", "name", "node0-peer"},
		[]string{"ip", "addr", "add", nodeIP + "/24", "dev", "node0"},
		[]string{"ip", "link", "set", "node0", "up"},
		[]string{"ip", "link", "set", "node0-peer", "up"},
		// Service addresses go to the node's interface, as a real node's default route would
		// take them: kube-proxy's rules rewrite them to a pod's or the node's address before
		// they go anywhere, so the node's programs and host-network pods reach Services.
		[]string{"ip", "route", "add", serviceCIDR, "dev", "node0"},
		// Both are the namespace's own: pods' traffic is routed, and bridged traffic goes
		// through the Service rules.
		[]string{"sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward && echo 1 > /proc/sys/net/bridge/bridge-nf-call-iptables"},
	)
	for _, step := range steps {
		if err := ns.run(ctx, step[0], step[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// renderNodeFile renders the embedded file name with data into path.
func renderNodeFile(name, path string, data any) error {
	text, err := nodeFiles.ReadFile("node/" + name)
	if err != nil {
		return err
	}
	tmpl, err := template.New(name).Option("missingkey=error").Parse(string(text))
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, data); err != nil {
		return fmt.Errorf("rendering %s: %w", name, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, out.Bytes(), 0o644)
}

func startNode(ctx context.Context, c *Cluster) (*node, error) {
	n := &node{dir: filepath.Join(c.Dir, "node")}
	b := c.opts.Assets
	err := c.progress.Phase("Pushing the node's images to the registry", func() (string, error) {
		var err error
		pushed, err := c.Registry.PushLayout(ctx, c.opts.Assets.NodeImages)
		if err != nil {
			return "", err
		}
		// By repository: pause, coredns, busybox, httpget.
		n.images = map[string]string{}
		for name, ref := range pushed {
			n.images[strings.SplitN(name, ":", 2)[0]] = ref
		}
		for _, name := range []string{"pause", "coredns"} {
			if n.images[name] == "" {
				return "", fmt.Errorf("the node's images in %s have no %s image: run `make node-images`", c.opts.Assets.NodeImages, name)
			}
		}
		return fmt.Sprintf("%d images", len(n.images)), nil
	})
	if err != nil {
		return nil, err
	}

	err = c.progress.Phase("Starting containerd", func() (string, error) {
		configDir := filepath.Join(n.dir, "containerd")
		registryConfigDir := n.registryConfigDir()
		for _, host := range append([]string{c.Registry.Host}, c.opts.RegistryMirrors...) {
			if err := writeRegistryHosts(registryConfigDir, host, c.Registry); err != nil {
				return "", err
			}
		}
		cniConfDir := filepath.Join(n.dir, "cni")
		if err := renderNodeFile("cni.conflist", filepath.Join(cniConfDir, "10-local-node.conflist"), map[string]string{"PodCIDR": podCIDR}); err != nil {
			return "", err
		}
		config := filepath.Join(configDir, "config.toml")
		if err := renderNodeFile("containerd.toml", config, map[string]string{
			"PauseImage": n.images["pause"], "RegistryConfigDir": registryConfigDir, "Runc": b.Runc,
			"CNIBinDir": b.CNIPlugins, "CNIConfDir": cniConfDir, "NodeIP": nodeIP,
		}); err != nil {
			return "", err
		}
		n.containerdOptions = ProcessOptions{
			Name: "containerd", Binary: filepath.Join(b.Containerd, "containerd"), Namespace: c.Namespace,
			Args: []string{"--config", config},
			// containerd finds its shim on PATH.
			Env: []string{"PATH=" + b.Containerd + ":" + os.Getenv("PATH"), "HOME=" + os.TempDir()},
		}
		return "", n.runContainerd(ctx, c)
	})
	if err != nil {
		return nil, err
	}

	err = c.progress.Phase("Starting the kubelet", func() (string, error) {
		var err error
		if n.cgroupRoot, err = makeCgroupRoot(); err != nil {
			return "", err
		}
		kubeletDir := filepath.Join(n.dir, "kubelet")
		config := filepath.Join(kubeletDir, "config.yaml")
		if err := renderNodeFile("kubelet.yaml", config, map[string]string{
			"CgroupRoot": n.cgroupRoot, "ClientCAFile": c.CAFile(), "NodeIP": nodeIP, "ClusterDomain": clusterDomain,
			"DNSServiceIP": DNSServiceIP, "ResolvConf": filepath.Join(n.dir, "etc/resolv.conf"),
		}); err != nil {
			return "", err
		}
		kubeconfig := filepath.Join(kubeletDir, "kubeconfig")
		if err := c.WriteKubeconfig(kubeconfig, "system:node:"+nodeName, []string{"system:nodes"}); err != nil {
			return "", err
		}
		n.kubeletOptions = ProcessOptions{
			Name: "kubelet", Binary: b.Kubelet, Namespace: c.Namespace,
			Args: []string{"--config=" + config, "--kubeconfig=" + kubeconfig, "--hostname-override=" + nodeName, "--node-ip=" + nodeIP, "--v=1"},
		}
		return nodeName + " at " + nodeIP, n.runKubelet(ctx, c)
	})
	if err != nil {
		return nil, err
	}

	err = c.progress.Phase("Starting kube-proxy", func() (string, error) {
		dir := filepath.Join(n.dir, "kube-proxy")
		kubeconfig := filepath.Join(dir, "kubeconfig")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := c.WriteKubeconfig(kubeconfig, "system:kube-proxy", nil); err != nil {
			return "", err
		}
		config := filepath.Join(dir, "config.yaml")
		if err := renderNodeFile("kube-proxy.yaml", config, map[string]string{
			"Kubeconfig": kubeconfig, "NodeName": nodeName, "PodCIDR": podCIDR, "NodeIP": nodeIP,
		}); err != nil {
			return "", err
		}
		_, err := c.start(ProcessOptions{Name: "kube-proxy", Binary: b.KubeProxy, Namespace: c.Namespace, Args: []string{"--config=" + config}})
		return "", err
	})
	if err != nil {
		return nil, err
	}

	err = c.progress.Phase("Deploying CoreDNS", func() (string, error) {
		if err := c.waitServiceAccount(ctx, "kube-system", "default"); err != nil {
			return "", err
		}
		if err := c.applyNodeManifest(ctx, "coredns.yaml", map[string]string{
			"Image": n.images["coredns"], "ClusterDomain": clusterDomain, "DNSServiceIP": DNSServiceIP,
		}); err != nil {
			return "", err
		}
		return DNSServiceIP, c.WaitDeploymentAvailable(ctx, "kube-system", "coredns", 2*time.Minute)
	})
	if err != nil {
		return nil, err
	}
	// Pods are refused until their namespace's default ServiceAccount exists.
	return n, c.waitServiceAccount(ctx, "default", "default")
}

// runContainerd starts the node's containerd and waits for its socket.
func (n *node) runContainerd(ctx context.Context, c *Cluster) error {
	containerd, err := c.start(n.containerdOptions)
	if err != nil {
		return err
	}
	n.containerd = containerd
	socket := fmt.Sprintf("/proc/%d/root/run/containerd/containerd.sock", c.Namespace.PID)
	return poll(ctx, 30*time.Second, "containerd's socket", func() (bool, string) {
		if !containerd.Running() {
			return false, "containerd ended"
		}
		_, err := os.Stat(socket)
		return err == nil, fmt.Sprint(err)
	})
}

// runKubelet starts the node's kubelet and waits for the node to be Ready.
func (n *node) runKubelet(ctx context.Context, c *Cluster) error {
	kubelet, err := c.start(n.kubeletOptions)
	if err != nil {
		return err
	}
	n.kubelet = kubelet
	return c.waitNodeReady(ctx, kubelet)
}

// waitNodeReady waits until the node reports Ready, with kubelet running.
func (c *Cluster) waitNodeReady(ctx context.Context, kubelet *Process) error {
	return poll(ctx, 90*time.Second, "node "+nodeName+" to be Ready", func() (bool, string) {
		if !kubelet.Running() {
			return false, "the kubelet ended"
		}
		node, err := c.Clientset.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, condition := range node.Status.Conditions {
			if condition.Type == corev1.NodeReady {
				return condition.Status == corev1.ConditionTrue, fmt.Sprintf("Ready=%s %s: %s", condition.Status, condition.Reason, condition.Message)
			}
		}
		return false, "no Ready condition yet"
	})
}

// waitServiceAccount waits for kube-controller-manager to make a ServiceAccount.
func (c *Cluster) waitServiceAccount(ctx context.Context, namespace, name string) error {
	return poll(ctx, time.Minute, "ServiceAccount "+namespace+"/"+name, func() (bool, string) {
		_, err := c.Clientset.CoreV1().ServiceAccounts(namespace).Get(ctx, name, metav1.GetOptions{})
		return err == nil, fmt.Sprint(err)
	})
}

// registryConfigDir holds containerd's hosts.toml of each registry it pulls from.
func (n *node) registryConfigDir() string { return filepath.Join(n.dir, "containerd", "certs.d") }

// writeRegistryHosts makes containerd pull the images named after host from registry,
// trusting registry's CA. containerd reads these files at each pull.
func writeRegistryHosts(configDir, host string, registry *Registry) error {
	return renderNodeFile("registry-hosts.toml", filepath.Join(configDir, host, "hosts.toml"),
		map[string]string{"Server": host, "Host": registry.Host, "CAFile": registry.CAFile})
}

// MirrorRegistry makes the node pull the images named after the registry mirrored (a
// host:port) from mirror instead, under the same repository and reference, as a
// disconnected cluster is set up to pull what it was published with from the registry it
// was mirrored to. It takes effect at the node's next pull.
func (c *Cluster) MirrorRegistry(mirrored string, mirror *Registry) error {
	if c.node == nil {
		return errors.New("only a cluster with a node pulls images")
	}
	if err := c.Namespace.ForwardIn(mirror.Host); err != nil {
		return err
	}
	return writeRegistryHosts(c.node.registryConfigDir(), mirrored, mirror)
}

// applyNodeManifest creates the objects of the embedded manifest name, rendered with data.
func (c *Cluster) applyNodeManifest(ctx context.Context, name string, data any) error {
	path := filepath.Join(c.Dir, "node", "manifests", name)
	if err := renderNodeFile(name, path, data); err != nil {
		return err
	}
	manifest, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return c.createManifest(ctx, manifest, name)
}

// createManifest creates the objects of a stream of YAML manifests, what names it in
// errors; objects that exist already are left as they are.
func (c *Cluster) createManifest(ctx context.Context, manifest []byte, what string) error {
	objects, err := decodeManifest(manifest)
	if err != nil {
		return fmt.Errorf("decoding %s: %w", what, err)
	}
	// A new client for each manifest: its REST mapping discovers the kinds of the CRDs
	// created before.
	writer, err := client.New(c.Config, client.Options{})
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

// decodeManifest decodes a stream of YAML manifests, skipping empty documents.
func decodeManifest(manifest []byte) ([]*unstructured.Unstructured, error) {
	decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(manifest), 4096)
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

// WaitDeploymentAvailable waits until a Deployment of the cluster has all its replicas
// updated and available (WaitDeploymentAvailable).
func (c *Cluster) WaitDeploymentAvailable(ctx context.Context, namespace, name string, timeout time.Duration) error {
	return WaitDeploymentAvailable(ctx, c.Clientset, namespace, name, timeout)
}

// WaitDeploymentAvailable waits until a Deployment has all its replicas updated and
// available; its error says what the Deployment and its pods showed last.
func WaitDeploymentAvailable(ctx context.Context, clientset kubernetes.Interface, namespace, name string, timeout time.Duration) error {
	return poll(ctx, timeout, "Deployment "+namespace+"/"+name+" to be available", func() (bool, string) {
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

// Image is the reference, in the local registry, of the node image name (pause, coredns,
// busybox, httpget), as pushed at start.
func (c *Cluster) Image(name string) string {
	if c.node == nil {
		return ""
	}
	return c.node.images[name]
}

// cgroupMounts lists the mount points of this machine's cgroup hierarchies.
func cgroupMounts() ([]string, error) {
	mounts, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return nil, err
	}
	var points []string
	for _, line := range strings.Split(string(mounts), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 3 && (fields[2] == "cgroup" || fields[2] == "cgroup2") {
			points = append(points, fields[1])
		}
	}
	return points, nil
}

// makeCgroupRoot makes the node's cgroup root in every hierarchy: the kubelet refuses a
// root that is missing from one. cpuset needs its CPUs and memory nodes set before anything
// can join it; they are its parent's.
func makeCgroupRoot() (string, error) {
	mounts, err := cgroupMounts()
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("%s%d-%d", cgroupPrefix, os.Getpid(), time.Now().UnixNano()%1_000_000)
	for _, mount := range mounts {
		dir := filepath.Join(mount, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", fmt.Errorf("making the node's cgroup root: %w", err)
		}
		for _, file := range []string{"cpuset.cpus", "cpuset.mems"} {
			if value, err := os.ReadFile(filepath.Join(mount, file)); err == nil {
				if err := os.WriteFile(filepath.Join(dir, file), value, 0o644); err != nil {
					return "", fmt.Errorf("setting %s of the node's cgroup root: %w", file, err)
				}
			}
		}
	}
	return "/" + name, nil
}

// removeCgroups removes the node's cgroup root from every hierarchy, once the processes in
// it have ended.
func removeCgroups(n *node) error {
	if n == nil || n.cgroupRoot == "" {
		return nil
	}
	mounts, err := cgroupMounts()
	if err != nil {
		return err
	}
	var errs []error
	for _, mount := range mounts {
		errs = append(errs, removeCgroupTree(filepath.Join(mount, n.cgroupRoot)))
	}
	return errors.Join(errs...)
}

// removeCgroupTree removes a cgroup folder and its children, deepest first. A cgroup can be
// removed only once its processes are gone, which takes a moment after they are killed.
func removeCgroupTree(root string) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		var dirs []string
		err := filepath.WalkDir(root, func(path string, entry fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if entry.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		var last error
		for i := len(dirs) - 1; i >= 0; i-- {
			if err := os.Remove(dirs[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
				last = err
			}
		}
		if last == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("removing the node's cgroup %s: %w", root, last)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// sweepLeftovers removes the cgroup roots of nodes whose maker died without stopping them
// (their processes died with it).
func sweepLeftovers() error {
	mounts, err := cgroupMounts()
	if err != nil {
		return err
	}
	var errs []error
	for _, mount := range mounts {
		entries, err := os.ReadDir(mount)
		if err != nil {
			continue
		}
		for _, entry := range entries {
			rest, ok := strings.CutPrefix(entry.Name(), cgroupPrefix)
			if !ok || !entry.IsDir() {
				continue
			}
			pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
			if err != nil || ProcessAlive(pid) {
				continue
			}
			errs = append(errs, removeCgroupTree(filepath.Join(mount, entry.Name())))
		}
	}
	return errors.Join(errs...)
}

// ProcessAlive tells whether a process with this PID runs (and is not a zombie).
func ProcessAlive(pid int) bool {
	fields, err := procStat(pid)
	return err == nil && len(fields) > 0 && fields[0] != "Z"
}

// procStat returns the fields of /proc/<pid>/stat after the command, which is in parentheses
// and may hold spaces: the state first, then the parent's PID.
func procStat(pid int) ([]string, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])), nil
}

// SignalContainer sends signal (such as SIGKILL) to the main process of a container of the
// node, named as a pod's status names it (containerd://ID), as the kernel's OOM killer or a
// crash would end it: the kubelet then restarts the container in the same pod.
func (c *Cluster) SignalContainer(ctx context.Context, containerID, signal string) error {
	if c.Namespace == nil {
		return errors.New("the cluster has no node")
	}
	id, ok := strings.CutPrefix(containerID, "containerd://")
	if !ok {
		return fmt.Errorf("container %q is not one of containerd's", containerID)
	}
	return c.Namespace.run(ctx, filepath.Join(c.opts.Assets.Containerd, "ctr"),
		"--address", "/run/containerd/containerd.sock", "--namespace", "k8s.io", "tasks", "kill", "--signal", signal, id)
}
