package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/extenddb/extenddb/httpfront"
	"github.com/extenddb/extenddb/pebblestore"
	"github.com/extenddb/extenddb/wire"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestParseServe(t *testing.T) {
	home := env("HOME", "/home/u")
	cases := []struct {
		name    string
		args    []string
		getenv  func(string) string
		check   func(t *testing.T, c serveConfig)
		wantErr string // substring; "" means success
	}{
		{name: "defaults", getenv: home, check: func(t *testing.T, c serveConfig) {
			if c.addr != "localhost:8000" || c.dataDir != "/home/u/.local/share/extenddb" || c.inMemory ||
				c.defaultAccount != "000000000000" || c.defaultRegion != "us-east-1" || c.logLevel != "info" ||
				c.logFormat != "console" || c.sync || c.transitionDelay != 0 || len(c.accessKeyAccounts) != 0 {
				t.Errorf("defaults: %+v", c)
			}
		}},
		{name: "xdg data home", getenv: env("HOME", "/home/u", "XDG_DATA_HOME", "/xdg"), check: func(t *testing.T, c serveConfig) {
			if c.dataDir != "/xdg/extenddb" {
				t.Errorf("dataDir = %q", c.dataDir)
			}
		}},
		{name: "relative xdg ignored", getenv: env("HOME", "/h", "XDG_DATA_HOME", "rel"), check: func(t *testing.T, c serveConfig) {
			if c.dataDir != "/h/.local/share/extenddb" {
				t.Errorf("dataDir = %q", c.dataDir)
			}
		}},
		{name: "every flag", getenv: home, args: []string{
			"--addr", "127.0.0.1:9000", "--data-dir", "/d", "--default-account", "111122223333",
			"--default-region", "eu-west-1", "--log-level", "debug", "--log-format", "json", "--sync",
			"--transition-delay", "1500ms", "--shutdown-timeout", "3s", "--policy-update-block", "15s", "--replication-delay", "250ms",
			"--access-key-account", "AKIA1=111111111111", "-access-key-account=AKIA2=222222222222,AKIA3=333333333333",
		}, check: func(t *testing.T, c serveConfig) {
			if c.addr != "127.0.0.1:9000" || c.dataDir != "/d" || c.defaultAccount != "111122223333" ||
				c.defaultRegion != "eu-west-1" || c.logLevel != "debug" || c.logFormat != "json" || !c.sync ||
				c.transitionDelay != 1500*time.Millisecond || c.shutdownTimeout != 3*time.Second || c.policyUpdateBlock != 15*time.Second ||
				c.replicationDelay != 250*time.Millisecond {
				t.Errorf("parsed: %+v", c)
			}
			if got := c.accessKeyAccounts.String(); got != "AKIA1=111111111111,AKIA2=222222222222,AKIA3=333333333333" {
				t.Errorf("access keys: %s", got)
			}
		}},
		{name: "env fallback", getenv: env("HOME", "/h", "EXTENDDB_ADDR", ":1", "EXTENDDB_SYNC", "true",
			"EXTENDDB_ACCESS_KEY_ACCOUNT", "A=444455556666", "EXTENDDB_DEFAULT_REGION", "ap-south-1"),
			check: func(t *testing.T, c serveConfig) {
				if c.addr != ":1" || !c.sync || c.accessKeyAccounts["A"] != "444455556666" || c.defaultRegion != "ap-south-1" {
					t.Errorf("from env: %+v", c)
				}
			}},
		{name: "flag beats env", getenv: env("HOME", "/h", "EXTENDDB_ADDR", ":1"), args: []string{"--addr", ":2"},
			check: func(t *testing.T, c serveConfig) {
				if c.addr != ":2" {
					t.Errorf("addr = %q", c.addr)
				}
			}},
		{name: "legacy global tables", getenv: home, args: []string{"--legacy-global-tables"}, check: func(t *testing.T, c serveConfig) {
			if !c.legacyGlobal {
				t.Error("legacyGlobal not set")
			}
		}},
		{name: "legacy global tables from env", getenv: env("HOME", "/h", "EXTENDDB_LEGACY_GLOBAL_TABLES", "true"), check: func(t *testing.T, c serveConfig) {
			if !c.legacyGlobal {
				t.Error("legacyGlobal not set from EXTENDDB_LEGACY_GLOBAL_TABLES")
			}
		}},
		{name: "in memory", getenv: home, args: []string{"--in-memory"}, check: func(t *testing.T, c serveConfig) {
			if !c.inMemory {
				t.Error("inMemory not set")
			}
		}},
		{name: "account too short", getenv: home, args: []string{"--default-account", "12345"}, wantErr: "--default-account \"12345\": must be 12 digits"},
		{name: "account not digits", getenv: home, args: []string{"--default-account", "12345678901x"}, wantErr: "must be 12 digits"},
		{name: "account from env", getenv: env("EXTENDDB_DEFAULT_ACCOUNT", "1"), wantErr: "must be 12 digits"},
		{name: "bad region", getenv: home, args: []string{"--default-region", "US East"}, wantErr: "--default-region"},
		{name: "bad level", getenv: home, args: []string{"--log-level", "trace"}, wantErr: "--log-level"},
		{name: "pprof off the network", getenv: home, args: []string{"--pprof", "0.0.0.0:6060"}, wantErr: "--pprof \"0.0.0.0:6060\": must be a loopback address"},
		{name: "pprof no port", getenv: home, args: []string{"--pprof", "127.0.0.1"}, wantErr: "--pprof \"127.0.0.1\""},
		{name: "pprof on loopback", getenv: home, args: []string{"--pprof", "[::1]:6060"}, check: func(t *testing.T, c serveConfig) {
			if c.pprof != "[::1]:6060" {
				t.Errorf("pprof = %q", c.pprof)
			}
		}},
		{name: "bad http front", getenv: home, args: []string{"--http-front", "h2"}, wantErr: "--http-front \"h2\": must be fast or net/http"},
		{name: "http front default", getenv: home, check: func(t *testing.T, c serveConfig) {
			if c.httpFront != "fast" {
				t.Errorf("httpFront = %q", c.httpFront)
			}
		}},
		{name: "http front from env", getenv: env("EXTENDDB_HTTP_FRONT", "net/http"), check: func(t *testing.T, c serveConfig) {
			if c.httpFront != "net/http" {
				t.Errorf("httpFront = %q", c.httpFront)
			}
		}},
		{name: "bad format", getenv: home, args: []string{"--log-format", "xml"}, wantErr: "--log-format"},
		{name: "negative delay", getenv: home, args: []string{"--transition-delay", "-1s"}, wantErr: "--transition-delay"},
		{name: "negative policy block", getenv: home, args: []string{"--policy-update-block", "-1s"}, wantErr: "--policy-update-block"},
		{name: "negative replication delay", getenv: home, args: []string{"--replication-delay", "-1s"}, wantErr: "--replication-delay"},
		{name: "short lease", getenv: home, args: []string{"--lease", "500ms"}, wantErr: "--lease 500ms: must be at least 1s"},
		{name: "lease", getenv: env("HOME", "/h", "EXTENDDB_LEASE", "30s"), check: func(t *testing.T, c serveConfig) {
			if c.lease != 30*time.Second {
				t.Errorf("lease = %s", c.lease)
			}
		}},
		{name: "lease default", getenv: home, check: func(t *testing.T, c serveConfig) {
			if c.lease != 10*time.Second {
				t.Errorf("lease = %s, want 10s", c.lease)
			}
		}},
		{name: "kinesis endpoint", getenv: env("HOME", "/h", "EXTENDDB_KINESIS_ENDPOINT", "http://127.0.0.1:4567"), check: func(t *testing.T, c serveConfig) {
			if c.kinesisEndpoint != "http://127.0.0.1:4567" {
				t.Errorf("kinesisEndpoint = %q", c.kinesisEndpoint)
			}
		}},
		{name: "bad kinesis endpoint", getenv: home, args: []string{"--kinesis-endpoint", "127.0.0.1:4567"}, wantErr: "--kinesis-endpoint: kinesis endpoint \"127.0.0.1:4567\": want an http:// or https:// URL"},
		{name: "negative pitr lag", getenv: home, args: []string{"--pitr-lag", "-1s"}, wantErr: "--pitr-lag"},
		{name: "pitr lag default", getenv: home, check: func(t *testing.T, c serveConfig) {
			if c.pitrLag != 5*time.Minute || pitrLagOption(c.pitrLag) != 5*time.Minute {
				t.Errorf("pitrLag = %s", c.pitrLag)
			}
		}},
		{name: "pitr lag none", getenv: env("HOME", "/h", "EXTENDDB_PITR_LAG", "0s"), check: func(t *testing.T, c serveConfig) {
			if c.pitrLag != 0 || pitrLagOption(c.pitrLag) >= 0 {
				t.Errorf("pitrLag = %s", c.pitrLag)
			}
		}},
		{name: "bad delay", getenv: home, args: []string{"--transition-delay", "soon"}, wantErr: "invalid value"},
		{name: "bad access key", getenv: home, args: []string{"--access-key-account", "AKIA"}, wantErr: "AKID=ACCOUNT"},
		{name: "bad access key account", getenv: home, args: []string{"--access-key-account", "AKIA=1"}, wantErr: "12 digits"},
		{name: "in memory wins over data dir", getenv: home, args: []string{"--data-dir", "/d", "--in-memory"}, check: func(t *testing.T, c serveConfig) {
			if !c.inMemory {
				t.Error("inMemory not set")
			}
		}},
		{name: "bad addr", getenv: home, args: []string{"--addr", "8000"}, wantErr: "--addr"},
		{name: "unknown flag", getenv: home, args: []string{"--nope"}, wantErr: "unknown flag --nope"},
		{name: "typo gets a hint", getenv: home, args: []string{"--in-memroy"}, wantErr: "unknown flag --in-memroy; did you mean --in-memory?"},
		{name: "case typo gets a hint", getenv: home, args: []string{"-dbpath", "x"}, wantErr: "did you mean --dbPath?"},
		{name: "near a flag", getenv: home, args: []string{"--default-regoin", "x"}, wantErr: "did you mean --default-region?"},
		{name: "far from every flag", getenv: home, args: []string{"--zzzzzzzz"}, wantErr: "unknown flag --zzzzzzzz"},
		{name: "bad port alias", getenv: home, args: []string{"-port", "http"}, wantErr: "not a port number"},
		{name: "DynamoDB Local flags", getenv: home, args: []string{"-port", "8001", "-inMemory", "-sharedDb", "-delayTransientStatuses",
			"-optimizeDbBeforeStartup", "-disableTelemetry", "-cors", "*"}, check: func(t *testing.T, c serveConfig) {
			if c.addr != "localhost:8001" || !c.inMemory || !c.sharedDB || c.transitionDelay != dynamoDBLocalDelay || c.cors != "*" {
				t.Errorf("DynamoDB Local flags: %+v", c)
			}
		}},
		{name: "dbPath and port keep the host", getenv: home, args: []string{"--addr", "127.0.0.1:1", "-port", "9", "-dbPath", "/x"},
			check: func(t *testing.T, c serveConfig) {
				if c.addr != "127.0.0.1:9" || c.dataDir != "/x" {
					t.Errorf("addr %q dataDir %q", c.addr, c.dataDir)
				}
			}},
		{name: "aliases take no environment", getenv: env("HOME", "/h", "EXTENDDB_INMEMORY", "true", "EXTENDDB_PORT", "1"),
			check: func(t *testing.T, c serveConfig) {
				if c.inMemory || c.addr != "localhost:8000" {
					t.Errorf("aliases read the environment: %+v", c)
				}
			}},
		{name: "per-key accounts", getenv: home, args: []string{"--account-per-access-key"}, check: func(t *testing.T, c serveConfig) {
			if !c.accountPerKey {
				t.Error("accountPerKey not set")
			}
		}},
		{name: "positional", getenv: home, args: []string{"extra"}, wantErr: "unexpected argument"},
		{name: "bad env", getenv: env("EXTENDDB_SYNC", "maybe"), wantErr: "EXTENDDB_SYNC"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseServe(tc.args, tc.getenv)
			if tc.wantErr != "" {
				var ue usageError
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &ue) {
					t.Fatalf("err = %v; want a usage error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

// run executes the CLI in-process and returns exit code, stdout, stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runEnv(t, env("HOME", t.TempDir()), args...)
}

func runEnv(t *testing.T, getenv func(string) string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &cli{stdout: &out, stderr: &errb, getenv: getenv, notify: context.WithCancel}
	// A serve that wrongly starts must not hang the test: it is stopped
	// after a while and reports exit 0, which the caller rejects.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	code := c.main(ctx, args)
	return code, out.String(), errb.String()
}

func TestDispatch(t *testing.T) {
	cases := []struct {
		args               []string
		code               int
		stdout, stderr     string
		noStdout, noStderr bool
	}{
		{args: nil, code: 2, stderr: "Commands:", noStdout: true},
		{args: []string{"help"}, code: 0, stdout: "Commands:", noStderr: true},
		{args: []string{"--help"}, code: 0, stdout: "serve", noStderr: true},
		{args: []string{"help", "serve"}, code: 0, stdout: "--default-account", noStderr: true},
		{args: []string{"help", "nope"}, code: 2, stderr: `unknown command "nope"`, noStdout: true},
		{args: []string{"frobnicate"}, code: 2, stderr: `unknown command "frobnicate"`, noStdout: true},
		{args: []string{"serve", "--help"}, code: 0, stdout: "Usage: extenddb serve", noStderr: true},
		{args: []string{"serve", "-h"}, code: 0, stdout: "--transition-delay", noStderr: true},
		{args: []string{"serve", "--default-account", "1"}, code: 2, stderr: "must be 12 digits", noStdout: true},
		{args: []string{"serve", "--bogus"}, code: 2, stderr: "extenddb serve: unknown flag --bogus ('extenddb serve --help' lists every flag)\n", noStdout: true},
		{args: []string{"validate", "--stack-nmae", "x"}, code: 2, stderr: "did you mean --stack-name?", noStdout: true},
		{args: []string{"version"}, code: 0, stdout: "extenddb dev\ngo: go1.", noStderr: true},
		{args: []string{"--version"}, code: 0, stdout: "extenddb ", noStderr: true},
		{args: []string{"version", "--help"}, code: 0, stdout: "Usage: extenddb version", noStderr: true},
		{args: []string{"version", "extra"}, code: 2, stderr: "unexpected argument", noStdout: true},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d; want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			if !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("stdout %q (want %q), stderr %q (want %q)", out, tc.stdout, errOut, tc.stderr)
			}
			if tc.noStdout && out != "" {
				t.Errorf("unexpected stdout: %q", out)
			}
			if tc.noStderr && errOut != "" {
				t.Errorf("unexpected stderr: %q", errOut)
			}
		})
	}
}

// TestServeHelpListsEveryFlag keeps the help a complete reference: every
// registered flag appears with its default and environment variable.
func TestServeHelpListsEveryFlag(t *testing.T) {
	_, out, _ := runEnv(t, env("HOME", "/home/u"), "serve", "--help")
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c := newServeConfig(env("HOME", "/home/u"))
	c.register(fs)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if isAlias(f) {
			if !strings.Contains(out, "  -"+f.Name) || strings.Contains(out, envName(f.Name)) {
				t.Errorf("-%s: help should list it among DynamoDB Local's flags, without a variable", f.Name)
			}
			return
		}
		i := strings.Index(out, "  --"+f.Name+" ")
		if i < 0 {
			i = strings.Index(out, "  --"+f.Name+"\n")
		}
		if i < 0 {
			t.Errorf("--%s missing from help", f.Name)
			return
		}
		want := "(default " + f.DefValue + "; env " + envName(f.Name) + ")"
		if f.DefValue == "" {
			want = `(default ""; env ` + envName(f.Name) + ")"
		}
		if !strings.Contains(out[i:], want) {
			t.Errorf("--%s: help lacks %q", f.Name, want)
		}
	})
	if n < 11 {
		t.Errorf("only %d flags registered", n)
	}
	for _, s := range []string{"(default localhost:8000;", "(default /home/u/.local/share/extenddb;", "(default 000000000000;",
		"(default us-east-1;", "(default info;", "(default console;", "(default false; env EXTENDDB_SYNC)", "(default 0s;", "(default none;"} {
		if !strings.Contains(out, s) {
			t.Errorf("help lacks %q", s)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe runs `serve args...` in-process and returns the listening
// address, a stop function (the "signal") and the exit code channel.
func startServe(t *testing.T, args ...string) (string, *syncBuffer, context.CancelFunc, <-chan int) {
	t.Helper()
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	c := &cli{stdout: io.Discard, stderr: logs, getenv: env("HOME", t.TempDir()), notify: context.WithCancel}
	done := make(chan int, 1)
	go func() {
		done <- c.main(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json"}, args...))
	}()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(logs.String()))
		for sc.Scan() {
			var line struct{ Message, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "extenddb serving" {
				return line.Addr, logs, cancel, done
			}
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d before listening:\n%s", code, logs.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("serve never logged its address:\n%s", logs.String())
	return "", nil, nil, nil
}

func TestServeStartsAndStops(t *testing.T) {
	for _, args := range [][]string{{"--in-memory"}, {"--data-dir", filepath.Join(t.TempDir(), "d")}} {
		t.Run(args[0], func(t *testing.T) {
			addr, logs, stop, done := startServe(t, args...)
			resp, err := http.Get("http://" + addr + "/")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET / = %d", resp.StatusCode)
			}
			stop()
			if code := <-done; code != 0 {
				t.Fatalf("exit %d\n%s", code, logs.String())
			}
			out := logs.String()
			for _, want := range []string{`"account":"000000000000"`, `"region":"us-east-1"`, `"message":"stopped"`} {
				if !strings.Contains(out, want) {
					t.Errorf("logs lack %s:\n%s", want, out)
				}
			}
			if args[0] == "--data-dir" {
				// The store was closed: its lock is free and it reopens.
				st, err := pebblestore.Open(pebblestore.Options{Dir: args[1]})
				if err != nil {
					t.Fatalf("reopening the data dir after exit: %v", err)
				}
				st.Close()
			}
			if args[0] == "--in-memory" && !strings.Contains(out, `"inMemory":true`) ||
				args[0] == "--data-dir" && !strings.Contains(out, `"dataDir":"`+args[1]+`"`) {
				t.Errorf("start line does not say where data lives:\n%s", out)
			}
		})
	}
}

// TestServingLineBeforeFirstAnswer: whoever waits for the port (the
// README's users, scripts, compose health checks) finds the start-up line
// already written when the first request is answered, although request
// lines are batched.
func TestServingLineBeforeFirstAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	c := &cli{stdout: io.Discard, stderr: logs, getenv: env("HOME", t.TempDir()), notify: context.WithCancel}
	done := make(chan int, 1)
	go func() { done <- c.main(ctx, []string{"serve", "--in-memory", "--addr", addr}) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			// The listener may accept before serve logs; the answer may not.
			_, _ = conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
			_, err = conn.Read(make([]byte, 1))
			conn.Close()
		}
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve never answered:\n%s", logs.String())
		}
		time.Sleep(100 * time.Microsecond)
	}
	if !strings.Contains(logs.String(), "extenddb serving") {
		t.Errorf("the first request was answered before the start-up line was written:\n%q", logs.String())
	}
}

func TestServeDataDirLocked(t *testing.T) {
	dir := t.TempDir()
	_, _, stop, done := startServe(t, "--data-dir", dir)
	defer func() { stop(); <-done }()
	code, _, errOut := run(t, "serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--log-format", "json")
	if code != 1 || !strings.Contains(errOut, "another extenddb is using "+dir) || !strings.Contains(errOut, "--data-dir DIR") {
		t.Fatalf("second server on the same data dir: exit %d\n%s", code, errOut)
	}
}

func TestServeAddrInUse(t *testing.T) {
	addr, _, stop, done := startServe(t, "--in-memory")
	defer func() { stop(); <-done }()
	code, _, errOut := run(t, "serve", "--in-memory", "--addr", addr, "--log-format", "json")
	if code != 1 || !strings.Contains(errOut, "address already in use") || !strings.Contains(errOut, "--addr HOST:PORT") {
		t.Fatalf("second server on %s: exit %d\n%s", addr, code, errOut)
	}
}

func TestInfoLogsRequests(t *testing.T) {
	addr, logs, stop, done := startServe(t, "--in-memory")
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader("{}"))
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	stop()
	<-done
	if !strings.Contains(logs.String(), `{"level":"info","op":"ListTables","status":200,`) {
		t.Errorf("no info line for the request:\n%s", logs.String())
	}
}

// TestServePprof: --pprof serves the profiles on its own loopback listener
// and the API's address does not.
func TestServePprof(t *testing.T) {
	addr, logs, stop, done := startServe(t, "--in-memory", "--pprof", "127.0.0.1:0")
	defer func() { stop(); <-done }()
	var pprofURL string
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var line struct{ Message, Pprof string }
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "serving profiles" {
			pprofURL = line.Pprof
		}
	}
	if pprofURL == "" {
		t.Fatalf("no line says where the profiles are:\n%s", logs.String())
	}
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(pprofURL + "allocs?debug=1"); code != http.StatusOK || !strings.Contains(body, "heap profile:") {
		t.Errorf("GET %sallocs?debug=1 = %d %.200s", pprofURL, code, body)
	}
	if code, body := get("http://" + addr + "/debug/pprof/allocs?debug=1"); strings.Contains(body, "heap profile:") {
		t.Errorf("the API's address serves profiles too: %d", code)
	}
}

// callerAccount asks STS GetCallerIdentity (query protocol) which account
// accessKey maps to; wire reads the key from the Authorization header.
func callerAccount(t *testing.T, addr, accessKey string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader("Action=GetCallerIdentity&Version=2011-06-15"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+accessKey+"/20261202/us-east-1/sts/aws4_request, SignedHeaders=host, Signature=00")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	_, rest, ok := strings.Cut(string(body), "<Account>")
	account, _, ok2 := strings.Cut(rest, "</Account>")
	if !ok || !ok2 {
		t.Fatalf("GetCallerIdentity: %d %s", resp.StatusCode, body)
	}
	return account
}

func TestServeAccountFlags(t *testing.T) {
	addr, _, stop, done := startServe(t, "--in-memory", "--default-account", "999988887777",
		"--access-key-account", "AKIAMAPPED=111122223333")
	defer func() { stop(); <-done }()
	for key, want := range map[string]string{"AKIAMAPPED": "111122223333", "AKIAOTHER": "999988887777"} {
		if got := callerAccount(t, addr, key); got != want {
			t.Errorf("account of %s = %s; want %s", key, got, want)
		}
	}
}

func TestServeAccountPerAccessKey(t *testing.T) {
	addr, _, stop, done := startServe(t, "--in-memory", "--account-per-access-key",
		"--access-key-account", "AKIAMAPPED=111122223333")
	defer func() { stop(); <-done }()
	a, b := callerAccount(t, addr, "test"), callerAccount(t, addr, "other")
	if a == b || a == "000000000000" || a != wire.DerivedAccount("test") {
		t.Errorf("per-key accounts: test=%s other=%s", a, b)
	}
	if got := callerAccount(t, addr, "AKIAMAPPED"); got != "111122223333" {
		t.Errorf("mapped key = %s", got)
	}
}

func TestServeSharedDb(t *testing.T) {
	addr, _, stop, done := startServe(t, "-inMemory", "-sharedDb")
	defer func() { stop(); <-done }()
	if got := callerAccount(t, addr, "111122223333"); got != "000000000000" {
		t.Errorf("with -sharedDb a 12-digit key still picks account %s", got)
	}
}

func TestHealthcheck(t *testing.T) {
	addr, _, stop, done := startServe(t, "--in-memory")
	defer func() { stop(); <-done }()
	_, port, _ := net.SplitHostPort(addr)
	if code, out, errOut := run(t, "healthcheck", "--addr", "0.0.0.0:"+port); code != 0 || !strings.Contains(out, "healthy") {
		t.Errorf("healthcheck of a running server: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := runEnv(t, env("EXTENDDB_ADDR", ":"+port), "healthcheck"); code != 0 {
		t.Errorf("healthcheck with EXTENDDB_ADDR: exit %d\n%s", code, errOut)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := ln.Addr().String()
	ln.Close()
	if code, _, errOut := run(t, "healthcheck", "--addr", free); code != 1 || !strings.Contains(errOut, "extenddb healthcheck: http://"+free) {
		t.Errorf("healthcheck with no server: exit %d\n%s", code, errOut)
	}
	// Something that answers, but not ExtendDB's health check.
	other := http.Server{Handler: http.NotFoundHandler()}
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = other.Serve(ln) }()
	defer other.Close()
	if code, _, errOut := run(t, "healthcheck", "--addr", ln.Addr().String()); code != 1 || !strings.Contains(errOut, "answered 404") {
		t.Errorf("healthcheck of another server: exit %d\n%s", code, errOut)
	}
}

func TestServeCORS(t *testing.T) {
	addr, _, stop, done := startServe(t, "--in-memory", "--cors", "http://localhost:3000")
	defer func() { stop(); <-done }()
	req, _ := http.NewRequest(http.MethodOptions, "http://"+addr+"/", nil)
	req.Header.Set("Origin", "http://localhost:3000")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "x-amz-target")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
}

// TestShutdownDrainsInFlightRequests: a request whose body is still arriving
// when SIGTERM comes is answered before the process exits, on either
// --http-front.
func TestShutdownDrainsInFlightRequests(t *testing.T) {
	for _, front := range []string{"fast", "net/http"} {
		t.Run(front, func(t *testing.T) { testShutdownDrains(t, front) })
	}
}

func testShutdownDrains(t *testing.T, front string) {
	addr, logs, stop, done := startServe(t, "--in-memory", "--http-front", front)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"Limit": 5}`
	head := "POST / HTTP/1.1\r\nHost: " + addr + "\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n" +
		"Content-Type: application/x-amz-json-1.0\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head+body[:3]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // let the server start reading the request
	stop()
	for !strings.Contains(logs.String(), "shutting down") {
		select {
		case code := <-done:
			t.Fatalf("exited (%d) with a request in flight:\n%s", code, logs.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if _, err := io.WriteString(conn, body[3:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("in-flight request not answered: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "TableNames") {
		t.Errorf("in-flight request: %d %s", resp.StatusCode, b)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s", code, logs.String())
	}
}

// TestNewHTTPServerByFront: --http-front picks the server serve runs.
func TestNewHTTPServerByFront(t *testing.T) {
	if _, ok := newHTTPServer("fast", http.NotFoundHandler(), nil, context.Background()).(*httpfront.Server); !ok {
		t.Error("fast: not httpfront.Server")
	}
	if _, ok := newHTTPServer("net/http", http.NotFoundHandler(), nil, context.Background()).(*http.Server); !ok {
		t.Error("net/http: not http.Server")
	}
}
