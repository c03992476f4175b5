package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"syscall"
)

// defaultAddr is --addr's default: this machine only. A server that anyone
// on the network can reach must be asked for (--addr 0.0.0.0:8000, as the
// Docker image does), since with --auth=off it serves every table to all.
const defaultAddr = "localhost:8000"

// listen opens addr. Host "localhost" is both loopback addresses,
// 127.0.0.1 and [::1], on one port (clients resolve localhost to either);
// [::1] is skipped where the machine has no IPv6 loopback. Any other host
// is one listener, as net.Listen opens it.
func listen(addr string) (net.Listener, error) {
	ln, err := listenOn(addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%w: another program listens on %s; give serve another address with --addr HOST:PORT (or -port PORT)", err, addr)
	}
	return ln, err
}

// listenOn is listen without the advice.
func listenOn(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "localhost" {
		return net.Listen("tcp", addr)
	}
	v4, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return nil, err
	}
	// Port 0 picked a free port for 127.0.0.1: [::1] takes the same.
	port = strconv.Itoa(v4.Addr().(*net.TCPAddr).Port)
	v6, err := net.Listen("tcp6", net.JoinHostPort("::1", port))
	if err != nil {
		var ae *net.AddrError
		if noIPv6Loopback(err) || errors.As(err, &ae) {
			return v4, nil
		}
		v4.Close()
		return nil, err
	}
	return newMultiListener(v4, v6), nil
}

// noIPv6Loopback reports an error of listening on [::1] where the machine
// has no IPv6: the address cannot be assigned or the family is missing.
func noIPv6Loopback(err error) bool {
	return errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EAFNOSUPPORT)
}

// listenAddrs is every address ln listens on.
func listenAddrs(ln net.Listener) []net.Addr {
	if m, ok := ln.(*multiListener); ok {
		addrs := make([]net.Addr, len(m.lns))
		for i, l := range m.lns {
			addrs[i] = l.Addr()
		}
		return addrs
	}
	return []net.Addr{ln.Addr()}
}

// beyondLoopback reports whether any of addrs can be reached from another
// machine: a wildcard (0.0.0.0, [::]) or a non-loopback address.
func beyondLoopback(addrs []net.Addr) bool {
	for _, a := range addrs {
		ta, ok := a.(*net.TCPAddr)
		if !ok || !ta.IP.IsLoopback() {
			return true
		}
	}
	return false
}

// multiListener accepts connections of several listeners as one; Addr is
// the first one's.
type multiListener struct {
	lns   []net.Listener
	conns chan net.Conn
	errs  chan error
	done  chan struct{}
	once  sync.Once
}

func newMultiListener(lns ...net.Listener) *multiListener {
	m := &multiListener{lns: lns, conns: make(chan net.Conn), errs: make(chan error), done: make(chan struct{})}
	for _, ln := range lns {
		go m.accept(ln)
	}
	return m
}

// accept hands ln's connections and errors to Accept until ln is closed.
// An error other than a closed listener (too many open files, say) is
// handed over and accepting goes on: the server's own back-off, which
// waits before it calls Accept again, paces the retries.
func (m *multiListener) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			select {
			case m.errs <- err:
				continue
			case <-m.done:
				return
			}
		}
		select {
		case m.conns <- c:
		case <-m.done:
			c.Close()
			return
		}
	}
}

func (m *multiListener) Accept() (net.Conn, error) {
	select {
	case c := <-m.conns:
		return c, nil
	case err := <-m.errs:
		return nil, err
	case <-m.done:
		return nil, net.ErrClosed
	}
}

func (m *multiListener) Close() error {
	var errs []error
	m.once.Do(func() {
		close(m.done)
		for _, ln := range m.lns {
			errs = append(errs, ln.Close())
		}
	})
	return errors.Join(errs...)
}

func (m *multiListener) Addr() net.Addr { return m.lns[0].Addr() }
