package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/rs/zerolog"
)

// checkPprofAddr accepts only a loopback address: profiles show the
// process's insides and a CPU profile costs CPU, so they are for the
// person at this machine, never for the network.
func checkPprofAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--pprof %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--pprof %q: must be a loopback address such as 127.0.0.1:6060", addr)
}

// servePprof serves Go's profiles under /debug/pprof/ on addr, on a
// listener of its own so the DynamoDB API's address never exposes them.
// Its mux is its own too: importing net/http/pprof also registers on
// http.DefaultServeMux, which nothing here serves.
func servePprof(addr string, log zerolog.Logger) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--pprof: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: newStdLogger(log)}
	go func() { _ = srv.Serve(ln) }()
	log.Info().Str("pprof", "http://"+ln.Addr().String()+"/debug/pprof/").Msg("serving profiles")
	return srv, nil
}
