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

package process

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// listener is a socket that accepts packets on an address other than loopback: a TCP
// socket in LISTEN, or a bound UDP socket.
type listener struct {
	Protocol string
	Address  string
	inode    string
}

// ExposedListeners lists the sockets of the caller's network namespace (the machine's,
// unless the caller runs in another) that accept packets on an address other than loopback
// and belong to process root or to a process it started, with the program that holds each.
// Processes of a node, in the node's own network namespace, are not in this table: there,
// any address is fine, as no route leads out.
func ExposedListeners(root int) ([]string, error) {
	var listeners []listener
	for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
		file, err := os.Open(filepath.Join("/proc/self/net", table))
		if errors.Is(err, os.ErrNotExist) {
			continue // no IPv6 on this kernel
		} else if err != nil {
			return nil, err
		}
		found, err := nonLoopbackListeners(table, file)
		_ = file.Close()
		if err != nil {
			return nil, fmt.Errorf("reading /proc/self/net/%s: %w", table, err)
		}
		listeners = append(listeners, found...)
	}
	if len(listeners) == 0 {
		return nil, nil
	}
	holders, err := socketHolders()
	if err != nil {
		return nil, err
	}
	var exposed []string
	for _, listener := range listeners {
		for _, pid := range holders[listener.inode] {
			if descendsFrom(pid, root) {
				exposed = append(exposed, fmt.Sprintf("%s %s held by PID %d (%s)", listener.Protocol, listener.Address, pid, commandOf(pid)))
			}
		}
	}
	sort.Strings(exposed)
	return exposed, nil
}

// nonLoopbackListeners reads a /proc/net table of protocol (tcp, tcp6, udp, udp6) and
// returns its listening sockets whose address is not a loopback one.
func nonLoopbackListeners(protocol string, table io.Reader) ([]listener, error) {
	const tcpListen, udpUnconnected = "0A", "07"
	want := tcpListen
	if strings.HasPrefix(protocol, "udp") {
		want = udpUnconnected
	}
	var listeners []listener
	lines := bufio.NewScanner(table)
	lines.Scan() // the header
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		if len(fields) < 10 {
			continue
		}
		if fields[3] != want {
			continue
		}
		address, err := parseProcAddress(fields[1])
		if err != nil {
			return nil, err
		}
		if address.IP.IsLoopback() {
			continue
		}
		listeners = append(listeners, listener{Protocol: protocol, Address: address.String(), inode: fields[9]})
	}
	return listeners, lines.Err()
}

// parseProcAddress parses an address of /proc/net/tcp, such as 0100007F:1F90: the IP as
// 32-bit words in the machine's byte order (little-endian here), the port in hex.
func parseProcAddress(field string) (*net.TCPAddr, error) {
	ipHex, portHex, ok := strings.Cut(field, ":")
	if !ok {
		return nil, fmt.Errorf("address %q has no port", field)
	}
	raw, err := hex.DecodeString(ipHex)
	if err != nil || (len(raw) != net.IPv4len && len(raw) != net.IPv6len) {
		return nil, fmt.Errorf("address %q has no IP", field)
	}
	ip := make(net.IP, len(raw))
	for word := 0; word < len(raw); word += 4 {
		for i := range 4 {
			ip[word+i] = raw[word+3-i]
		}
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return nil, fmt.Errorf("address %q: port: %w", field, err)
	}
	return &net.TCPAddr{IP: ip, Port: int(port)}, nil
}

// socketHolders maps each socket inode to the processes that hold it open.
func socketHolders() (map[string][]int, error) {
	processes, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return nil, err
	}
	holders := map[string][]int{}
	for _, process := range processes {
		pid, err := strconv.Atoi(filepath.Base(process))
		if err != nil {
			continue
		}
		descriptors, err := os.ReadDir(filepath.Join(process, "fd"))
		if err != nil {
			continue // ended meanwhile, or not ours to read
		}
		for _, descriptor := range descriptors {
			target, err := os.Readlink(filepath.Join(process, "fd", descriptor.Name()))
			if inode, ok := strings.CutPrefix(target, "socket:["); err == nil && ok {
				inode = strings.TrimSuffix(inode, "]")
				holders[inode] = append(holders[inode], pid)
			}
		}
	}
	return holders, nil
}

// descendsFrom tells whether process pid is root or was started by it, directly or not.
func descendsFrom(pid, root int) bool {
	for pid > 1 {
		if pid == root {
			return true
		}
		fields, err := stat(pid)
		if err != nil || len(fields) < 2 {
			return false
		}
		if pid, err = strconv.Atoi(fields[1]); err != nil { // the parent's PID
			return false
		}
	}
	return pid == root
}

// commandOf is the command line of process pid, for messages.
func commandOf(pid int) string {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return "ended"
	}
	return strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))
}
