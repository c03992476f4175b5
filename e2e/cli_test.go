package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// TestCLI builds the extenddb binary once and runs it as a user would.
func TestCLI(t *testing.T) {
	t.Parallel() // slow and self-contained: overlaps the other slow ones
	if runtime.GOOS == "windows" {
		t.Skip("signals are POSIX")
	}
	bin := buildBinary(t)
	t.Run("ServeAndSIGTERM", func(t *testing.T) { testServeAndSignal(t, bin, syscall.SIGTERM) })
	t.Run("ServeAndSIGINT", func(t *testing.T) { testServeAndSignal(t, bin, syscall.SIGINT) })
	t.Run("HelpListsEveryFlag", func(t *testing.T) { testHelp(t, bin) })
	t.Run("Version", func(t *testing.T) { testVersion(t, bin) })
	t.Run("BadInput", func(t *testing.T) { testBadInput(t, bin) })
	t.Run("AWSCLI", func(t *testing.T) { testAWSCLI(t, bin) })
	t.Run("AuthSigV4AWSCLI", func(t *testing.T) { testAuthSigV4CLI(t, bin) })
	t.Run("PartiQLCLI", func(t *testing.T) { testPartiQLCLI(t, bin) })
	t.Run("PersistenceAcrossRestart", func(t *testing.T) { testPersistence(t, bin) })
	t.Run("SyncSurvivesSIGKILL", func(t *testing.T) { testSyncSurvivesKill(t, bin) })
}

func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "extenddb-e2e")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		bin := filepath.Join(dir, "extenddb")
		cmd := exec.Command("go", "build", "-ldflags", "-X main.version=v0.0.0-e2e", "-o", bin, "./cmd/extenddb")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// built is the binary the tests share: linking it takes seconds of CPU,
// and it is the same for every test. TestMain removes it.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// lockedBuffer collects a process's output while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type server struct {
	cmd    *exec.Cmd
	url    string
	stderr *lockedBuffer
	done   chan error
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// start runs `extenddb serve args...` on a free port and waits until GET /
// answers. The process is killed at the end of the test if still running.
func start(t *testing.T, bin string, args ...string) *server {
	t.Helper()
	s, err := tryStart(t, bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tryStart is start returning its failure, for callers in goroutines.
func tryStart(t *testing.T, bin string, args ...string) (*server, error) {
	addr := freePort(t)
	s := &server{url: "http://" + addr, stderr: &lockedBuffer{}, done: make(chan error, 1)}
	s.cmd = exec.Command(bin, append([]string{"serve", "--addr", addr, "--log-format", "json"}, args...)...)
	s.cmd.Stderr = s.stderr
	s.cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_DATA_HOME=")
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.url + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return nil, fmt.Errorf("GET / = %d", resp.StatusCode)
			}
			return s, nil
		}
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("extenddb exited before serving (%v):\n%s", err, s.stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("extenddb did not answer GET / within 30s:\n%s", s.stderr.String())
		}
	}
}

// stop sends sig and returns the exit error (nil for exit 0).
func (s *server) stop(t *testing.T, sig os.Signal) error {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("extenddb did not exit within 30s of %v:\n%s", sig, s.stderr.String())
		return nil
	}
}

func (s *server) client() *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(s.url),
		Credentials:      credentials.NewStaticCredentialsProvider("AKIAIOSFODNN7EXAMPLE", "secret", ""),
		RetryMaxAttempts: 1,
	})
}

func testServeAndSignal(t *testing.T, bin string, sig os.Signal) {
	s := start(t, bin, "--in-memory")
	if err := s.stop(t, sig); err != nil {
		t.Fatalf("exit after %v: %v\n%s", sig, err, s.stderr.String())
	}
	logs := s.stderr.String()
	for _, want := range []string{`"message":"extenddb serving"`, `"inMemory":true`, `"account":"000000000000"`,
		`"region":"us-east-1"`, `"version":"v0.0.0-e2e"`, `"message":"stopped"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s:\n%s", want, logs)
		}
	}
}

func run(t *testing.T, bin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

func testHelp(t *testing.T, bin string) {
	code, out, _ := run(t, bin, "serve", "--help")
	if code != 0 {
		t.Fatalf("serve --help exited %d", code)
	}
	for _, flag := range []string{"addr", "data-dir", "in-memory", "default-account", "default-region", "log-level",
		"log-format", "sync", "transition-delay", "access-key-account"} {
		i := strings.Index(out, "--"+flag)
		if i < 0 {
			t.Errorf("serve --help lacks --%s", flag)
			continue
		}
		if !strings.Contains(out[i:], "(default ") {
			t.Errorf("serve --help shows no default for --%s", flag)
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}} {
		if code, out, _ := run(t, bin, args...); code != 0 || !strings.Contains(out, "serve") || !strings.Contains(out, "version") {
			t.Errorf("%v: exit %d\n%s", args, code, out)
		}
	}
	if code, out, errOut := run(t, bin); code != 2 || out != "" || !strings.Contains(errOut, "Usage") {
		t.Errorf("no command: exit %d, stdout %q, stderr %q; want 2 and usage on stderr", code, out, errOut)
	}
	if code, out, errOut := run(t, bin, "serv"); code != 2 || out != "" || !strings.Contains(errOut, `unknown command "serv"`) {
		t.Errorf("unknown command: exit %d, stdout %q, stderr %q; want 2 and usage on stderr", code, out, errOut)
	}
}

func testVersion(t *testing.T, bin string) {
	code, out, _ := run(t, bin, "version")
	if code != 0 || !strings.HasPrefix(out, "extenddb v0.0.0-e2e\n") || !strings.Contains(out, "go: go1.") {
		t.Fatalf("version: exit %d\n%s", code, out)
	}
}

func testBadInput(t *testing.T, bin string) {
	cases := [][]string{
		{"serve", "--in-memory", "--default-account", "123"},
		{"serve", "--in-memory", "--default-account", "abcdefghijkl"},
		{"serve", "--in-memory", "--log-level", "loud"},
		{"serve", "--in-memory", "--access-key-account", "AKIA"},
		{"serve", "--in-memory", "--no-such-flag"},
	}
	for _, args := range cases {
		code, out, errOut := run(t, bin, args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, "extenddb serve: ") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line", args, code, out, errOut)
		}
	}
	// A port already in use is a runtime failure: exit 1.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, errOut := run(t, bin, "serve", "--in-memory", "--addr", ln.Addr().String())
	if code != 1 || !strings.Contains(errOut, "address already in use") {
		t.Errorf("busy port: exit %d\n%s", code, errOut)
	}
}

// aws runs the AWS CLI against s with dummy credentials and no user config.
func (s *server) aws(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return s.awsAs(t, "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "", args...)
}

// awsAs runs the AWS CLI against s signing with the given credentials.
func (s *server) awsAs(t *testing.T, key, secret, token string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "aws", append(args, "--endpoint-url", s.url, "--region", "us-east-1", "--output", "json")...)
	dir := t.TempDir()
	// Drop the user's AWS settings (profiles, session tokens) entirely: an
	// empty AWS_PROFILE is itself an error to the CLI.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if token != "" {
		cmd.Env = append(cmd.Env, "AWS_SESSION_TOKEN="+token)
	}
	cmd.Env = append(cmd.Env,
		"AWS_ACCESS_KEY_ID="+key, "AWS_SECRET_ACCESS_KEY="+secret,
		"AWS_CONFIG_FILE="+filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "credentials"),
		"AWS_MAX_ATTEMPTS=1", "AWS_PAGER=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("aws %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

func testAWSCLI(t *testing.T, bin string) {
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("aws (AWS CLI) not on PATH")
	}
	s := start(t, bin, "--in-memory")
	out, err := s.aws(t, "dynamodb", "list-tables")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"TableNames"`) {
		t.Fatalf("list-tables output: %s", out)
	}
	out, err = s.aws(t, "dynamodb", "create-table", "--table-name", "Cli",
		"--attribute-definitions", "AttributeName=pk,AttributeType=S",
		"--key-schema", "AttributeName=pk,KeyType=HASH", "--billing-mode", "PAY_PER_REQUEST")
	if strings.Contains(out, "UnknownOperationException") {
		t.Skip("CreateTable is not implemented yet (UnknownOperationException); the rest of this test waits for it")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"arn:aws:dynamodb:us-east-1:000000000000:table/Cli"`) {
		t.Errorf("create-table output lacks the table ARN:\n%s", out)
	}
	if _, err := s.aws(t, "dynamodb", "wait", "table-exists", "--table-name", "Cli"); err != nil {
		t.Fatal(err)
	}
	out, err = s.aws(t, "dynamodb", "describe-table", "--table-name", "Cli")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"TableStatus": "ACTIVE"`) {
		t.Errorf("describe-table:\n%s", out)
	}
}

// createTable creates table name through the SDK, or skips the test while
// CreateTable is still a stub.
func createTable(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String(name),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode() == "UnknownOperationException" {
		t.Skip("CreateTable is not implemented yet (UnknownOperationException)")
	}
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
}

func wantTable(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	out, err := c.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatalf("DescribeTable(%s) after restart: %v", name, err)
	}
	if got := aws.ToString(out.Table.TableArn); got != "arn:aws:dynamodb:us-east-1:000000000000:table/"+name {
		t.Errorf("TableArn = %s", got)
	}
}

func testPersistence(t *testing.T, bin string) {
	dir := filepath.Join(t.TempDir(), "data")
	s := start(t, bin, "--data-dir", dir)
	createTable(t, s.client(), "Persisted")
	if err := s.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("exit: %v\n%s", err, s.stderr.String())
	}
	s = start(t, bin, "--data-dir", dir)
	wantTable(t, s.client(), "Persisted")
	if err := s.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("exit: %v\n%s", err, s.stderr.String())
	}
}

// testSyncSurvivesKill: with --sync, an acknowledged CreateTable survives
// SIGKILL (no clean shutdown at all).
func testSyncSurvivesKill(t *testing.T, bin string) {
	dir := filepath.Join(t.TempDir(), "data")
	s := start(t, bin, "--data-dir", dir, "--sync")
	createTable(t, s.client(), "Synced")
	_ = s.stop(t, syscall.SIGKILL)
	s = start(t, bin, "--data-dir", dir)
	wantTable(t, s.client(), "Synced")
}
