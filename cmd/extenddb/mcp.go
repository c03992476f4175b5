package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac"
	"github.com/extenddb/extenddb/mcpserver"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/wire"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpCmdConfig is what `extenddb mcp` is told.
type mcpCmdConfig struct {
	endpoint, region, httpAddr, token string
	allowWrites                       bool
	loads                             stringList
}

func newMCPCmdFlags() (*flag.FlagSet, *mcpCmdConfig) {
	c := &mcpCmdConfig{region: "us-east-1"}
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.StringVar(&c.endpoint, "endpoint", c.endpoint, "`URL` of the running server the tools act on (default: an embedded in-memory server of its own)")
	fs.StringVar(&c.region, "region", c.region, "`REGION` of requests whose tool call names none")
	fs.BoolVar(&c.allowWrites, "allow-writes", c.allowWrites, "add the tools that change data (put_item, delete_item, load_iac, restore_snapshot, reset, PartiQL other than SELECT); without it the server is read-only")
	fs.StringVar(&c.httpAddr, "http", c.httpAddr, "serve MCP over Streamable HTTP on `ADDR` (loopback only, e.g. 127.0.0.1:8001) instead of stdin/stdout")
	fs.StringVar(&c.token, "token", c.token, "`TOKEN` HTTP clients must send as \"Authorization: Bearer TOKEN\" (default with --http: a random one, printed on stderr)")
	fs.Var(&c.loads, "load", "`PATH` of Terraform or CloudFormation to provision into the embedded server at start (repeatable)")
	return fs, c
}

func mcpCmdUsage(_ *cli, w io.Writer) {
	fs, _ := newMCPCmdFlags()
	fmt.Fprint(w, `Usage: extenddb mcp [flags]

Serve the Model Context Protocol, so an AI assistant can list and describe
tables, read, query and scan items, run PartiQL, see throttle state and hot
keys, and (with --allow-writes) put and delete items and load Terraform or
CloudFormation. It acts on the server at --endpoint through the DynamoDB
API, as an application would; without --endpoint on an embedded in-memory
server of its own, gone when it exits.

It speaks MCP on stdin/stdout (register the command with the MCP client),
or with --http on a loopback address, where every request must carry the
token. The AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY of the environment
sign requests to a server with --auth=sigv4.

Flags:

`)
	printFlags(w, fs)
}

func runMCPCmd(ctx context.Context, c *cli, args []string) int {
	fs, cfg := newMCPCmdFlags()
	err := parseFlags(fs, args, c.getenv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		mcpCmdUsage(c, c.stdout)
		return 0
	case err != nil:
		return usageFailed(c, "mcp", err)
	case cfg.endpoint != "" && len(cfg.loads) > 0:
		return usageFailed(c, "mcp", errors.New("--load provisions the embedded server: use it without --endpoint (or the load_iac tool)"))
	case cfg.token != "" && cfg.httpAddr == "":
		return usageFailed(c, "mcp", errors.New("--token is for --http"))
	}
	if c.notify != nil {
		var stop context.CancelFunc
		ctx, stop = c.notify(ctx)
		defer stop()
	}
	if err := runMCP(ctx, c, cfg); err != nil {
		fmt.Fprintf(c.stderr, "extenddb mcp: %v\n", err)
		return 1
	}
	return 0
}

func runMCP(ctx context.Context, c *cli, cfg *mcpCmdConfig) error {
	opts := mcpserver.Options{Endpoint: cfg.endpoint, Region: cfg.region, AllowWrites: cfg.allowWrites, Version: versionString()}
	if key, secret := c.getenv("AWS_ACCESS_KEY_ID"), c.getenv("AWS_SECRET_ACCESS_KEY"); key != "" && secret != "" {
		opts.Credentials = credentials.NewStaticCredentialsProvider(key, secret, c.getenv("AWS_SESSION_TOKEN"))
	}
	if cfg.endpoint == "" {
		stop, err := startEmbedded(ctx, c, cfg, &opts)
		if err != nil {
			return err
		}
		defer stop()
	}
	srv, err := mcpserver.New(opts)
	if err != nil {
		return err
	}
	if cfg.httpAddr == "" {
		err := srv.Run(ctx, &mcp.StdioTransport{})
		if ctx.Err() != nil || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	return serveMCPHTTP(ctx, c, cfg, srv)
}

// serveMCPHTTP serves srv on cfg.httpAddr until ctx ends.
func serveMCPHTTP(ctx context.Context, c *cli, cfg *mcpCmdConfig, srv *mcp.Server) error {
	token := cfg.token
	if token == "" {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		token = hex.EncodeToString(b)
		fmt.Fprintf(c.stderr, "extenddb mcp: token %s (send \"Authorization: Bearer %s\"; --token or EXTENDDB_TOKEN sets one)\n", token, token)
	}
	h, err := mcpserver.Handler(srv, token)
	if err != nil {
		return err
	}
	ln, err := mcpserver.Listen(cfg.httpAddr)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "extenddb mcp: serving MCP on http://%s/\n", ln.Addr())
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	return nil
}

// startEmbedded starts an in-memory server on a free loopback port, points
// opts at it, and has load_iac provision into its engine directly.
func startEmbedded(ctx context.Context, c *cli, cfg *mcpCmdConfig, opts *mcpserver.Options) (stop func(), err error) {
	store, err := pebblestore.Open(pebblestore.Options{InMemory: true})
	if err != nil {
		return nil, err
	}
	// The console, as serve has it: the embedded server's endpoint shows it
	// to a browser, and hot_keys reads its recent partition keys.
	web := newWeb(webConfig{console: "on", metrics: "off"}, false)
	eng, err := emulator.New(emulator.Options{Store: store, Observer: web.observer()})
	if err != nil {
		_ = store.Close()
		return nil, err
	}
	closeAll := func() {
		_ = eng.Close()
		_ = store.Close()
	}
	opts.Load = iac.Options{DefaultAccount: wire.DefaultAccount, DefaultRegion: cfg.region}
	opts.Provision = func(ctx context.Context, specs []iac.TableSpec) ([]iac.Outcome, iac.Diagnostics) {
		return iac.ProvisionWith(ctx, eng, specs, iac.ProvisionOptions{})
	}
	var loaded []iac.TableSpec
	if len(cfg.loads) > 0 {
		specs, diags := iac.Load(cfg.loads, opts.Load)
		loaded = specs
		if !diags.HasErrors() {
			_, more := opts.Provision(ctx, specs)
			diags = append(diags, more...)
		}
		for _, d := range diags {
			fmt.Fprintln(c.stderr, d.String())
		}
		if diags.HasErrors() {
			closeAll()
			return nil, errors.New("--load failed")
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		closeAll()
		return nil, err
	}
	wireOpts := wire.Options{DefaultRegion: cfg.region}
	if err := web.mount(eng, nil, api.Namespace{Account: wire.DefaultAccount, Region: cfg.region}, loaded, &wireOpts); err != nil {
		_ = ln.Close()
		closeAll()
		return nil, err
	}
	hs := &http.Server{Handler: wire.NewHandler(eng, wireOpts), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	opts.Endpoint = "http://" + ln.Addr().String()
	fmt.Fprintf(c.stderr, "extenddb mcp: embedded in-memory server at %s (DynamoDB clients may use it too; its console is at /console/)\n", opts.Endpoint)
	return func() {
		_ = hs.Close()
		closeAll()
	}, nil
}
