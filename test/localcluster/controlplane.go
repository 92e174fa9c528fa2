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
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// The cluster's addresses. They exist only inside the node's namespace; a cluster without a
// node has no pod or service traffic at all.
const (
	// nodeIP is the node's address: the apiserver advertises it, the kubelet reports it.
	nodeIP = "10.200.0.2"
	// serviceCIDR holds the Service ClusterIPs; the first one is the kubernetes Service's.
	serviceCIDR         = "10.96.0.0/16"
	kubernetesServiceIP = "10.96.0.1"
	// DNSServiceIP is CoreDNS's Service, the pods' nameserver.
	DNSServiceIP = "10.96.0.10"
	// podCIDR is the node's pod address range.
	podCIDR       = "10.244.0.0/24"
	clusterDomain = "cluster.local"
	// nodeName names the node; /etc/hosts of the namespace resolves it to nodeIP.
	nodeName = "local-node"
)

// controlPlane is etcd, kube-apiserver and, if asked, kube-controller-manager and
// kube-scheduler, with the certificates they and their clients use.
type controlPlane struct {
	pki     string
	ca      *certificateAuthority
	address string // host:port of the apiserver, the same inside the node's namespace and out
	admin   *rest.Config
	etcdURL string

	apiserverOptions ProcessOptions
	apiserver        *Process
}

func startControlPlane(ctx context.Context, c *Cluster) (*controlPlane, error) {
	cp := &controlPlane{pki: filepath.Join(c.Dir, "pki")}
	c.cp = cp
	var etcdURL string
	err := c.progress.Phase("Starting etcd", func() (string, error) {
		var err error
		if cp.ca, err = loadOrCreateCA(cp.pki); err != nil {
			return "", err
		}
		ports, err := freePorts(2)
		if err != nil {
			return "", err
		}
		etcdURL = "http://127.0.0.1:" + strconv.Itoa(ports[0])
		etcd, err := c.start(ProcessOptions{
			Name: "etcd", Binary: c.opts.Assets.Etcd, Namespace: c.Namespace,
			Args: []string{
				"--data-dir=" + filepath.Join(c.Dir, "etcd"),
				"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
				"--listen-peer-urls=http://127.0.0.1:" + strconv.Itoa(ports[1]),
				// A local cluster is thrown away; not waiting for the disk makes every write faster.
				"--unsafe-no-fsync",
			},
		})
		if err != nil {
			return "", err
		}
		return etcdURL, poll(ctx, 30*time.Second, "etcd to serve "+etcdURL, func() (bool, string) {
			if !etcd.Running() {
				return false, "etcd ended"
			}
			conn, err := c.dial("tcp", etcdURL[len("http://"):])
			if err != nil {
				return false, err.Error()
			}
			_ = conn.Close()
			return true, ""
		})
	})
	if err != nil {
		return nil, err
	}
	cp.etcdURL = etcdURL

	err = c.progress.Phase("Starting kube-apiserver", func() (string, error) {
		if err := cp.startAPIServer(ctx, c, etcdURL); err != nil {
			return "", err
		}
		return "https://" + cp.address, nil
	})
	if err != nil {
		return nil, err
	}
	c.Config = cp.admin
	c.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	if err := c.WriteKubeconfig(c.Kubeconfig, "admin", []string{"system:masters"}); err != nil {
		return nil, err
	}
	if c.Clientset, err = kubernetes.NewForConfig(c.Config); err != nil {
		return nil, err
	}

	if c.opts.Node {
		if err := c.progress.Phase("Starting kube-controller-manager", func() (string, error) {
			return "", cp.startControllerManager(c)
		}); err != nil {
			return nil, err
		}
	}
	if c.opts.Node {
		if err := c.progress.Phase("Starting kube-scheduler", func() (string, error) {
			return "", cp.startScheduler(c)
		}); err != nil {
			return nil, err
		}
	}
	return cp, nil
}

// dial connects where the cluster's processes listen: inside the node's namespace, if any.
func (c *Cluster) dial(network, address string) (net.Conn, error) {
	if c.Namespace != nil {
		return c.Namespace.Dial(context.Background(), network, address)
	}
	return net.DialTimeout(network, address, 5*time.Second)
}

func (cp *controlPlane) startAPIServer(ctx context.Context, c *Cluster, etcdURL string) error {
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	cp.address = "127.0.0.1:" + strconv.Itoa(ports[0])
	serving, servingKey, err := cp.ca.serving(cp.pki, "kube-apiserver",
		[]net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(nodeIP), net.ParseIP(kubernetesServiceIP)},
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc." + clusterDomain})
	if err != nil {
		return err
	}
	saKey, saPublicKey, err := serviceAccountKeys(cp.pki)
	if err != nil {
		return err
	}
	flags := map[string]string{
		"etcd-servers":                     etcdURL,
		"secure-port":                      strconv.Itoa(ports[0]),
		"tls-cert-file":                    serving,
		"tls-private-key-file":             servingKey,
		"client-ca-file":                   filepath.Join(cp.pki, caCertFile),
		"service-account-issuer":           "https://kubernetes.default.svc." + clusterDomain,
		"service-account-key-file":         saPublicKey,
		"service-account-signing-key-file": saKey,
		"service-cluster-ip-range":         serviceCIDR,
		"authorization-mode":               "Node,RBAC",
		"allow-privileged":                 "true",
	}
	if c.opts.Node {
		kubeletClient, kubeletClientKey, err := cp.ca.client(cp.pki, "apiserver-kubelet-client", "kube-apiserver-kubelet-client",
			[]string{"system:masters"})
		if err != nil {
			return err
		}
		// Inside the namespace only loopback and the node's interface exist; pods reach the
		// apiserver at nodeIP through the kubernetes Service.
		flags["bind-address"] = "0.0.0.0"
		flags["advertise-address"] = nodeIP
		flags["enable-admission-plugins"] = "NodeRestriction"
		flags["kubelet-client-certificate"] = kubeletClient
		flags["kubelet-client-key"] = kubeletClientKey
		// The node's name is in the namespace's /etc/hosts, not in the machine's resolver.
		flags["kubelet-preferred-address-types"] = "InternalIP,Hostname"
	} else {
		flags["bind-address"] = "127.0.0.1"
		// Without a node, the apiserver is reached on loopback only; the kubernetes Service
		// cannot point there (Endpoints refuse loopback addresses), and nothing would use it.
		flags["advertise-address"] = "127.0.0.1"
		flags["endpoint-reconciler-type"] = "none"
		// No controller creates the namespaces' default ServiceAccounts: admit pods without
		// them, as the tests' pods are only objects.
		flags["disable-admission-plugins"] = "ServiceAccount"
	}
	// The aggregation layer, as kubeadm sets it up: the apiserver proxies aggregated APIs
	// (OLM's packageserver) as front-proxy-client, with the user in request headers.
	frontProxyCA, err := loadOrCreateNamedCA(filepath.Join(cp.pki, "front-proxy"), "foo-operator local cluster front-proxy CA")
	if err != nil {
		return err
	}
	proxyClient, proxyClientKey, err := frontProxyCA.client(cp.pki, "front-proxy-client", "front-proxy-client", nil)
	if err != nil {
		return err
	}
	flags["requestheader-client-ca-file"] = filepath.Join(cp.pki, "front-proxy", caCertFile)
	flags["requestheader-allowed-names"] = "front-proxy-client"
	flags["requestheader-username-headers"] = "X-Remote-User"
	flags["requestheader-group-headers"] = "X-Remote-Group"
	flags["requestheader-extra-headers-prefix"] = "X-Remote-Extra-"
	flags["proxy-client-cert-file"] = proxyClient
	flags["proxy-client-key-file"] = proxyClientKey
	if c.opts.Node {
		// To the aggregated API's pods directly: the apiserver is in the pods' network.
		flags["enable-aggregator-routing"] = "true"
	}
	for name, value := range c.opts.APIServerFlags {
		flags[name] = value
	}
	cp.apiserverOptions = ProcessOptions{Name: "kube-apiserver", Binary: c.opts.Assets.APIServer, Namespace: c.Namespace, Args: flagList(flags)}
	if c.Namespace != nil {
		if err := c.Namespace.ForwardOut(cp.address); err != nil {
			return err
		}
	}
	adminCert, adminKey, err := cp.ca.client(cp.pki, "admin", "admin", []string{"system:masters"})
	if err != nil {
		return err
	}
	cp.admin = &rest.Config{
		Host: "https://" + cp.address,
		TLSClientConfig: rest.TLSClientConfig{
			CAData: cp.ca.certPEM, CertFile: adminCert, KeyFile: adminKey,
		},
		// The library's clients wait on the apiserver's priority and fairness only.
		QPS: -1,
	}
	if err := rest.LoadTLSFiles(cp.admin); err != nil {
		return err
	}
	return cp.runAPIServer(ctx, c)
}

func (cp *controlPlane) runAPIServer(ctx context.Context, c *Cluster) error {
	var err error
	if cp.apiserver, err = c.start(cp.apiserverOptions); err != nil {
		return err
	}
	return cp.waitAPIServerReady(ctx)
}

// waitAPIServerReady waits for /readyz to answer ok, as an administrator.
func (cp *controlPlane) waitAPIServerReady(ctx context.Context) error {
	certificate, err := tls.X509KeyPair(cp.admin.CertData, cp.admin.KeyData)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(cp.ca.certPEM)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
		RootCAs: roots, Certificates: []tls.Certificate{certificate}, MinVersion: tls.VersionTLS12,
	}}}
	defer client.CloseIdleConnections()
	url := "https://" + cp.address + "/readyz"
	return poll(ctx, 90*time.Second, "kube-apiserver to answer "+url, func() (bool, string) {
		if !cp.apiserver.Running() {
			return false, "kube-apiserver ended"
		}
		response, err := client.Get(url)
		if err != nil {
			return false, err.Error()
		}
		_ = response.Body.Close()
		return response.StatusCode == http.StatusOK, "HTTP " + response.Status
	})
}

// StopAPIServer stops kube-apiserver with SIGTERM and leaves the rest running, as an outage
// would. It stops listening at once, then drains: with a node, its process may linger on
// streams that never end, so after 15s it is killed, which is no failure of the stop.
func (c *Cluster) StopAPIServer() error {
	if _, err := c.cp.apiserver.Stop(15 * time.Second); err != nil && c.cp.apiserver.Running() {
		return err
	}
	return nil
}

// StartAPIServer starts kube-apiserver again after StopAPIServer, on the same address, etcd
// and certificates, so that every credential handed out stays valid.
func (c *Cluster) StartAPIServer(ctx context.Context) error {
	return c.cp.runAPIServer(ctx, c)
}

func (cp *controlPlane) startControllerManager(c *Cluster) error {
	kubeconfig, err := cp.componentKubeconfig(c, "kube-controller-manager", "system:kube-controller-manager", nil)
	if err != nil {
		return err
	}
	flags := map[string]string{
		"kubeconfig":                       kubeconfig,
		"authentication-kubeconfig":        kubeconfig,
		"authorization-kubeconfig":         kubeconfig,
		"leader-elect":                     "false",
		"secure-port":                      "0",
		"use-service-account-credentials":  "true",
		"service-account-private-key-file": filepath.Join(cp.pki, "service-account.key"),
		"root-ca-file":                     filepath.Join(cp.pki, caCertFile),
		"service-cluster-ip-range":         serviceCIDR,
	}
	return c.startRestarting(ProcessOptions{
		Name: "kube-controller-manager", Binary: c.opts.Assets.ControllerManager, Namespace: c.Namespace, Args: flagList(flags),
	})
}

func (cp *controlPlane) startScheduler(c *Cluster) error {
	kubeconfig, err := cp.componentKubeconfig(c, "kube-scheduler", "system:kube-scheduler", nil)
	if err != nil {
		return err
	}
	return c.startRestarting(ProcessOptions{Name: "kube-scheduler", Binary: c.opts.Assets.Scheduler, Namespace: c.Namespace,
		Args: flagList(map[string]string{
			"kubeconfig":                kubeconfig,
			"authentication-kubeconfig": kubeconfig,
			"authorization-kubeconfig":  kubeconfig,
			"leader-elect":              "false",
			"secure-port":               "0",
		})})
}

// componentKubeconfig writes the kubeconfig of a component that authenticates as user.
func (cp *controlPlane) componentKubeconfig(c *Cluster, name, user string, groups []string) (string, error) {
	path := filepath.Join(cp.pki, name+".kubeconfig")
	return path, c.WriteKubeconfig(path, user, groups)
}

// WriteKubeconfig writes a kubeconfig for user in groups, with a client certificate the
// cluster's CA signs. Its server is the apiserver's loopback address, the same inside the
// node's namespace and on the machine.
func (c *Cluster) WriteKubeconfig(path, user string, groups []string) error {
	certFile, keyFile, err := c.cp.ca.client(c.cp.pki, "user-"+sanitize(user), user, groups)
	if err != nil {
		return err
	}
	cert, err := os.ReadFile(certFile)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	return c.writeKubeconfig(path, &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key})
}

// WriteTokenKubeconfig writes a kubeconfig that authenticates with a bearer token, such as a
// ServiceAccount's.
func (c *Cluster) WriteTokenKubeconfig(path, token string) error {
	return c.writeKubeconfig(path, &clientcmdapi.AuthInfo{Token: token})
}

func (c *Cluster) writeKubeconfig(path string, auth *clientcmdapi.AuthInfo) error {
	config := clientcmdapi.NewConfig()
	config.Clusters["local"] = &clientcmdapi.Cluster{Server: c.cp.admin.Host, CertificateAuthorityData: c.cp.ca.certPEM}
	config.AuthInfos["local"] = auth
	config.Contexts["local"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "local"}
	config.CurrentContext = "local"
	return clientcmd.WriteToFile(*config, path)
}

// CAFile is the PEM file of the CA that signed the apiserver's certificate.
func (c *Cluster) CAFile() string { return filepath.Join(c.cp.pki, caCertFile) }

// flagList turns flags into --name=value arguments, sorted so that logs read alike.
func flagList(flags map[string]string) []string {
	args := make([]string, 0, len(flags))
	for name, value := range flags {
		args = append(args, "--"+name+"="+value)
	}
	sort.Strings(args)
	return args
}

func sanitize(name string) string {
	out := []rune(name)
	for i, r := range out {
		allowed := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-'
		if !allowed {
			out[i] = '-'
		}
	}
	return string(out)
}

// freePorts finds n ports of 127.0.0.1 that are free now on the machine. Inside the node's
// namespace every port is free.
func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
