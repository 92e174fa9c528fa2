// Command coredns is CoreDNS with the plugins the local cluster's Corefile
// (hack/localcluster/node/coredns.yaml) uses, and no others: CoreDNS's own main links every
// plugin of its plugin.cfg (cloud DNS providers, etcd, tracing), which doubles its build
// for a server that answers only for the cluster's names. The plugins register themselves
// when imported; the order they run in is CoreDNS's own (dnsserver.Directives).
package main

import (
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics" // the "prometheus" directive
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

func main() {
	coremain.Run()
}
