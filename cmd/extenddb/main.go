package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// cli is what a subcommand may touch of the outside world, so tests run
// commands in-process with their own streams and environment.
type cli struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// notify returns a context cancelled on the first SIGINT or SIGTERM,
	// and a function restoring default handling (so a second signal kills).
	notify func(ctx context.Context) (context.Context, context.CancelFunc)
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, c *cli, args []string) int
	// usage prints the command's full help (flags with defaults) to w.
	usage func(c *cli, w io.Writer)
}

// commands lists every subcommand, in the order usage shows them.
func commands() []command {
	return []command{
		{name: "serve", summary: "serve the DynamoDB API", run: runServe, usage: serveUsage},
		{name: "validate", summary: "check Terraform/CloudFormation tables and print what would be provisioned", run: runValidate, usage: validateUsage},
		{name: "throttle", summary: "show, reset, drain or pin a table's throttle buckets on a running server", run: runThrottleCmd, usage: throttleCmdUsage},
		{name: "snapshot", summary: "save, restore or reset the state of a running server (for test suites)", run: runSnapshotCmd, usage: snapshotCmdUsage},
		{name: "top", summary: "show a table's most accessed and most throttled keys (Contributor Insights) on a running server", run: runTopCmd, usage: topCmdUsage},
		{name: "mcp", summary: "serve the Model Context Protocol: tools for an AI assistant over a running server or an embedded one", run: runMCPCmd, usage: mcpCmdUsage},
		{name: "healthcheck", summary: "exit 0 if a server answers its health check (for Docker HEALTHCHECK)", run: runHealthcheck, usage: healthcheckUsage},
		{name: "version", summary: "print version information", run: runVersion, usage: versionUsage},
	}
}

func main() {
	c := &cli{
		stdout: os.Stdout,
		stderr: os.Stderr,
		getenv: os.Getenv,
		notify: func(ctx context.Context) (context.Context, context.CancelFunc) {
			return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		},
	}
	os.Exit(c.main(context.Background(), os.Args[1:]))
}

// main dispatches args to a subcommand and returns the exit code: 0 success,
// 1 failure, 2 bad usage.
func (c *cli) main(ctx context.Context, args []string) int {
	if len(args) == 0 {
		c.usage(c.stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			c.usage(c.stdout)
			return 0
		}
		if cmd, ok := lookup(rest[0]); ok {
			cmd.usage(c, c.stdout)
			return 0
		}
		fmt.Fprintf(c.stderr, "extenddb: unknown command %q\n\n", rest[0])
		c.usage(c.stderr)
		return 2
	case "-version", "--version":
		name = "version"
	}
	cmd, ok := lookup(name)
	if !ok {
		fmt.Fprintf(c.stderr, "extenddb: unknown command %q\n\n", name)
		c.usage(c.stderr)
		return 2
	}
	return cmd.run(ctx, c, rest)
}

func lookup(name string) (command, bool) {
	for _, cmd := range commands() {
		if cmd.name == name {
			return cmd, true
		}
	}
	return command{}, false
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprint(w, "ExtendDB: a local Amazon DynamoDB.\n\nUsage:\n\n\textenddb <command> [flags]\n\nCommands:\n\n")
	for _, cmd := range commands() {
		fmt.Fprintf(w, "\t%-12s %s\n", cmd.name, cmd.summary)
	}
	fmt.Fprint(w, "\t"+fmt.Sprintf("%-12s %s", "help", "print this help, or a command's: extenddb help serve")+"\n")
	fmt.Fprint(w, "\nRun 'extenddb <command> --help' for a command's flags and their defaults.\n")
}

// usageFailed reports a command-line mistake in one line, pointing at the
// command's help rather than printing all of it, and returns exit code 2.
// controlURL is path on the server --endpoint names, for the commands
// that drive a running server's controls.
func controlURL(endpoint, path string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(endpoint, "/") + path)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("--endpoint %q: want a URL such as http://localhost:8000", endpoint)
	}
	return u, nil
}

func usageFailed(c *cli, name string, err error) int {
	fmt.Fprintf(c.stderr, "extenddb %s: %v ('extenddb %s --help' lists every flag)\n", name, err, name)
	return 2
}
