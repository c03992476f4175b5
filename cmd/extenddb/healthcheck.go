package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// healthcheckConfig is what `extenddb healthcheck` is told.
type healthcheckConfig struct {
	addr    string
	timeout time.Duration
}

func (c *healthcheckConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "addr", c.addr, "`HOST:PORT` the server listens on (an empty or wildcard host means this machine)")
	fs.DurationVar(&c.timeout, "timeout", c.timeout, "`DURATION` to wait for the answer")
}

func newHealthcheckFlags() (*flag.FlagSet, *healthcheckConfig) {
	c := &healthcheckConfig{addr: ":8000", timeout: 3 * time.Second}
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	c.register(fs)
	return fs, c
}

func healthcheckUsage(_ *cli, w io.Writer) {
	fs, _ := newHealthcheckFlags()
	fmt.Fprint(w, "Usage: extenddb healthcheck [flags]\n\nAsk a running server whether it is healthy (GET / answers \"healthy: ...\").\nExits 0 when it is, 1 when it is not. Made for Docker's HEALTHCHECK: the\nimage has no shell and no curl. It reads EXTENDDB_ADDR like serve does.\n\nFlags:\n\n")
	printFlags(w, fs)
}

func runHealthcheck(ctx context.Context, c *cli, args []string) int {
	fs, cfg := newHealthcheckFlags()
	switch err := parseFlags(fs, args, c.getenv); {
	case errors.Is(err, flag.ErrHelp):
		healthcheckUsage(c, c.stdout)
		return 0
	case err != nil:
		return usageFailed(c, "healthcheck", err)
	}
	url, err := healthURL(cfg.addr)
	if err != nil {
		return usageFailed(c, "healthcheck", err)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if err := checkHealth(ctx, url); err != nil {
		fmt.Fprintf(c.stderr, "extenddb healthcheck: %s: %v\n", url, err)
		return 1
	}
	fmt.Fprintf(c.stdout, "healthy: %s\n", url)
	return 0
}

// healthURL is the URL of the health check of a server listening on addr;
// a wildcard host is reached on the loopback interface.
func healthURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/", nil
}

func checkHealth(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "healthy:") {
		return fmt.Errorf("answered %d %q", resp.StatusCode, body)
	}
	return nil
}
