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

package node

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/example/foo-operator/hack/localcluster/controlplane"
	"github.com/example/foo-operator/hack/localcluster/process"
	"github.com/example/foo-operator/hack/localcluster/registry"
	"github.com/example/foo-operator/hack/localcluster/resources"
)

// nodeFiles are the settings of the node's programs, each with the reasons it differs from
// their defaults on this kind of machine.
//
//go:embed *.conflist *.toml *.yaml
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

// Options says what the node runs.
type Options struct {
	// Containerd is the folder of containerd, ctr and containerd-shim-runc-v2; Runc, runc;
	// CNIPlugins, the folder of the CNI plugins; Kubelet and KubeProxy, their binaries.
	Containerd, Runc, CNIPlugins, Kubelet, KubeProxy string
	// Images is the image layout of the node's images: pause, coredns, busybox, httpget.
	Images string
	// RegistryMirrors are registries whose images the node pulls from the cluster's
	// registry, under the same repository and reference.
	RegistryMirrors []string
}

// Node is the cluster's one node: containerd and runc, the kubelet, kube-proxy, and CoreDNS
// as a pod, all in the host's namespace.
type Node struct {
	host *process.Host
	cp   *controlplane.ControlPlane
	opts Options

	dir        string
	cgroupRoot string
	images     map[string]string
	// containerd and the kubelet, and how to start them again (RestartContainerd,
	// RestartKubelet).
	containerd, kubelet               *process.Process
	containerdOptions, kubeletOptions process.Options
	registry                          *registry.Registry
}

// StartNamespace makes the node's network, mount and PID namespace, the host's from then on,
// after removing what earlier nodes left behind: the control plane and the node run in it.
// It serves registryHost (the cluster's registry on the machine's loopback) inside it.
func StartNamespace(ctx context.Context, host *process.Host, registryHost string) error {
	if err := sweepLeftovers(); err != nil {
		return err
	}
	namespace, err := process.StartNamespace(ctx, host.LogDir)
	if err != nil {
		return err
	}
	host.Namespace = namespace
	if err := setUpNamespace(ctx, namespace, filepath.Join(host.Dir, "node")); err != nil {
		return err
	}
	return namespace.ForwardIn(registryHost)
}

// setUpNamespace prepares the namespace's mounts and network. The node keeps the paths it
// expects while writing only into dir: /var/lib and /var/log are bound from there, /run is
// a private tmpfs, /etc/hosts and /etc/resolv.conf are the node's own.
func setUpNamespace(ctx context.Context, ns *process.Namespace, dir string) error {
	for _, sub := range []string{"var-lib", "var-log", "etc", "sysctl"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	hosts := fmt.Sprintf("127.0.0.1 localhost\n%s %s\n", controlplane.NodeIP, controlplane.NodeName)
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
		[]string{"ip", "addr", "add", controlplane.NodeIP + "/24", "dev", "node0"},
		[]string{"ip", "link", "set", "node0", "up"},
		[]string{"ip", "link", "set", "node0-peer", "up"},
		// Service addresses go to the node's interface, as a real node's default route would
		// take them: kube-proxy's rules rewrite them to a pod's or the node's address before
		// they go anywhere, so the node's programs and host-network pods reach Services.
		[]string{"ip", "route", "add", controlplane.ServiceCIDR, "dev", "node0"},
		// Both are the namespace's own: pods' traffic is routed, and bridged traffic goes
		// through the Service rules.
		[]string{"sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward && echo 1 > /proc/sys/net/bridge/bridge-nf-call-iptables"},
	)
	for _, step := range steps {
		if err := ns.Run(ctx, step[0], step[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// renderNodeFile renders the embedded file name with data into path.
func renderNodeFile(name, path string, data any) error {
	text, err := nodeFiles.ReadFile(name)
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

// Start starts the node in the host's namespace (StartNamespace), with the control plane
// that runs there, and returns once it is Ready and CoreDNS serves.
func Start(ctx context.Context, host *process.Host, cp *controlplane.ControlPlane, pullFrom *registry.Registry, opts Options) (*Node, error) {
	n := &Node{host: host, cp: cp, opts: opts, registry: pullFrom, dir: filepath.Join(host.Dir, "node")}
	b := opts
	c := host
	err := c.Progress.Phase("Pushing the node's images to the registry", func() (string, error) {
		var err error
		pushed, err := n.registry.PushLayout(ctx, opts.Images)
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
				return "", fmt.Errorf("the node's images in %s have no %s image: run `make node-images`", opts.Images, name)
			}
		}
		return fmt.Sprintf("%d images", len(n.images)), nil
	})
	if err != nil {
		return nil, err
	}

	err = c.Progress.Phase("Starting containerd", func() (string, error) {
		configDir := filepath.Join(n.dir, "containerd")
		registryConfigDir := n.registryConfigDir()
		for _, mirrored := range append([]string{n.registry.Host}, opts.RegistryMirrors...) {
			if err := writeRegistryHosts(registryConfigDir, mirrored, n.registry); err != nil {
				return "", err
			}
		}
		cniConfDir := filepath.Join(n.dir, "cni")
		if err := renderNodeFile("cni.conflist", filepath.Join(cniConfDir, "10-local-node.conflist"),
			map[string]string{"PodCIDR": controlplane.PodCIDR}); err != nil {
			return "", err
		}
		config := filepath.Join(configDir, "config.toml")
		if err := renderNodeFile("containerd.toml", config, map[string]string{
			"PauseImage": n.images["pause"], "RegistryConfigDir": registryConfigDir, "Runc": b.Runc,
			"CNIBinDir": b.CNIPlugins, "CNIConfDir": cniConfDir, "NodeIP": controlplane.NodeIP,
		}); err != nil {
			return "", err
		}
		n.containerdOptions = process.Options{
			Name: "containerd", Binary: filepath.Join(b.Containerd, "containerd"), Namespace: c.Namespace,
			Args: []string{"--config", config},
			// containerd finds its shim on PATH.
			Env: []string{"PATH=" + b.Containerd + ":" + os.Getenv("PATH"), "HOME=" + os.TempDir()},
		}
		return "", n.StartContainerd(ctx)
	})
	if err != nil {
		return nil, err
	}

	err = c.Progress.Phase("Starting the kubelet", func() (string, error) {
		var err error
		if n.cgroupRoot, err = makeCgroupRoot(); err != nil {
			return "", err
		}
		kubeletDir := filepath.Join(n.dir, "kubelet")
		config := filepath.Join(kubeletDir, "config.yaml")
		if err := renderNodeFile("kubelet.yaml", config, map[string]string{
			"CgroupRoot": n.cgroupRoot, "ClientCAFile": cp.CAFile(), "NodeIP": controlplane.NodeIP, "ClusterDomain": controlplane.ClusterDomain,
			"DNSServiceIP": controlplane.DNSServiceIP, "ResolvConf": filepath.Join(n.dir, "etc/resolv.conf"),
		}); err != nil {
			return "", err
		}
		kubeconfig := filepath.Join(kubeletDir, "kubeconfig")
		if err := cp.WriteKubeconfig(kubeconfig, "system:node:"+controlplane.NodeName, []string{"system:nodes"}); err != nil {
			return "", err
		}
		n.kubeletOptions = process.Options{
			Name: "kubelet", Binary: b.Kubelet, Namespace: c.Namespace,
			Args: []string{"--config=" + config, "--kubeconfig=" + kubeconfig, "--hostname-override=" + controlplane.NodeName,
				"--node-ip=" + controlplane.NodeIP, "--v=1"},
		}
		return controlplane.NodeName + " at " + controlplane.NodeIP, n.StartKubelet(ctx)
	})
	if err != nil {
		return nil, err
	}

	err = c.Progress.Phase("Starting kube-proxy", func() (string, error) {
		dir := filepath.Join(n.dir, "kube-proxy")
		kubeconfig := filepath.Join(dir, "kubeconfig")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if err := cp.WriteKubeconfig(kubeconfig, "system:kube-proxy", nil); err != nil {
			return "", err
		}
		config := filepath.Join(dir, "config.yaml")
		if err := renderNodeFile("kube-proxy.yaml", config, map[string]string{
			"Kubeconfig": kubeconfig, "NodeName": controlplane.NodeName, "PodCIDR": controlplane.PodCIDR, "NodeIP": controlplane.NodeIP,
		}); err != nil {
			return "", err
		}
		_, err := c.Start(process.Options{Name: "kube-proxy", Binary: b.KubeProxy, Namespace: c.Namespace, Args: []string{"--config=" + config}})
		return "", err
	})
	if err != nil {
		return nil, err
	}

	err = c.Progress.Phase("Deploying CoreDNS", func() (string, error) {
		if err := n.waitServiceAccount(ctx, "kube-system", "default"); err != nil {
			return "", err
		}
		if err := n.applyManifest(ctx, "coredns.yaml", map[string]string{
			"Image": n.images["coredns"], "ClusterDomain": controlplane.ClusterDomain, "DNSServiceIP": controlplane.DNSServiceIP,
		}); err != nil {
			return "", err
		}
		return controlplane.DNSServiceIP, resources.WaitDeploymentAvailable(ctx, cp.Clientset, "kube-system", "coredns", 2*time.Minute)
	})
	if err != nil {
		return nil, err
	}
	// Pods are refused until their namespace's default ServiceAccount exists.
	return n, n.waitServiceAccount(ctx, "default", "default")
}

// StartContainerd starts the node's containerd, with the settings of its first start, and
// waits for its socket.
func (n *Node) StartContainerd(ctx context.Context) error {
	containerd, err := n.host.Start(n.containerdOptions)
	if err != nil {
		return err
	}
	n.containerd = containerd
	socket := fmt.Sprintf("/proc/%d/root/run/containerd/containerd.sock", n.host.Namespace.PID)
	return process.Poll(ctx, 30*time.Second, "containerd's socket", func() (bool, string) {
		if !containerd.Running() {
			return false, "containerd ended"
		}
		_, err := os.Stat(socket)
		return err == nil, fmt.Sprint(err)
	})
}

// StartKubelet starts the node's kubelet, with the settings of its first start, and waits
// for the node to be Ready.
func (n *Node) StartKubelet(ctx context.Context) error {
	kubelet, err := n.host.Start(n.kubeletOptions)
	if err != nil {
		return err
	}
	n.kubelet = kubelet
	return n.waitReady(ctx, kubelet)
}

// Kubelet and Containerd are the node's running kubelet and containerd.
func (n *Node) Kubelet() *process.Process    { return n.kubelet }
func (n *Node) Containerd() *process.Process { return n.containerd }

// Ctr is the path of containerd's ctr, which talks to the node's containerd.
func (n *Node) Ctr() string { return filepath.Join(n.opts.Containerd, "ctr") }

// waitReady waits until the node reports Ready, with kubelet running.
func (n *Node) waitReady(ctx context.Context, kubelet *process.Process) error {
	return process.Poll(ctx, 90*time.Second, "node "+controlplane.NodeName+" to be Ready", func() (bool, string) {
		if !kubelet.Running() {
			return false, "the kubelet ended"
		}
		node, err := n.cp.Clientset.CoreV1().Nodes().Get(ctx, controlplane.NodeName, metav1.GetOptions{})
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
func (n *Node) waitServiceAccount(ctx context.Context, namespace, name string) error {
	return process.Poll(ctx, time.Minute, "ServiceAccount "+namespace+"/"+name, func() (bool, string) {
		_, err := n.cp.Clientset.CoreV1().ServiceAccounts(namespace).Get(ctx, name, metav1.GetOptions{})
		return err == nil, fmt.Sprint(err)
	})
}

// registryConfigDir holds containerd's hosts.toml of each registry it pulls from.
func (n *Node) registryConfigDir() string { return filepath.Join(n.dir, "containerd", "certs.d") }

// writeRegistryHosts makes containerd pull the images named after host from registry,
// trusting registry's CA. containerd reads these files at each pull.
func writeRegistryHosts(configDir, host string, pullFrom *registry.Registry) error {
	return renderNodeFile("registry-hosts.toml", filepath.Join(configDir, host, "hosts.toml"),
		map[string]string{"Server": host, "Host": pullFrom.Host, "CAFile": pullFrom.CAFile})
}

// MirrorRegistry makes the node pull the images named after the registry mirrored (a
// host:port) from mirror instead, under the same repository and reference, as a
// disconnected cluster is set up to pull what it was published with from the registry it
// was mirrored to. It takes effect at the node's next pull.
func (n *Node) MirrorRegistry(mirrored string, mirror *registry.Registry) error {
	if err := n.host.Namespace.ForwardIn(mirror.Host); err != nil {
		return err
	}
	return writeRegistryHosts(n.registryConfigDir(), mirrored, mirror)
}

// applyManifest creates the objects of the embedded manifest name, rendered with data.
func (n *Node) applyManifest(ctx context.Context, name string, data any) error {
	path := filepath.Join(n.dir, "manifests", name)
	if err := renderNodeFile(name, path, data); err != nil {
		return err
	}
	manifest, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return resources.Create(ctx, n.cp.Config, manifest, name)
}

// Image is the reference, in the local registry, of the node image name (pause, coredns,
// busybox, httpget), as pushed at start.
func (n *Node) Image(name string) string {
	return n.images[name]
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

// RemoveCgroups removes the node's cgroup root from every hierarchy, once the processes in
// it have ended (stopping the namespace ends them).
func (n *Node) RemoveCgroups() error {
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
			if err != nil || process.Alive(pid) {
				continue
			}
			errs = append(errs, removeCgroupTree(filepath.Join(mount, entry.Name())))
		}
	}
	return errors.Join(errs...)
}
