package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readmeBlocks returns the ```sh blocks of README.md by the "## " section
// they appear in.
func readmeBlocks(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string][]string{}
	section, in := "", false
	var cur strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
		case !in && line == "```sh":
			in = true
			cur.Reset()
		case in && line == "```":
			in = false
			blocks[section] = append(blocks[section], cur.String())
		case in:
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

// readmeEnv is a new user's environment: a scratch HOME, no AWS settings
// at all (no ~/.aws, no AWS_* variables), no EXTENDDB_* variables. Go keeps
// this machine's module and build caches, so the test does not download the
// modules again (the README says the first build does).
func readmeEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	home := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "AWS_") || strings.HasPrefix(name, "EXTENDDB_") || strings.HasPrefix(name, "XDG_") ||
			name == "HOME" || name == "GOCACHE" || name == "GOMODCACHE" || name == "GOPATH" {
			continue
		}
		env = append(env, kv)
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", v, err)
		}
		env = append(env, v+"="+strings.TrimSpace(string(out)))
	}
	return append(append(env, "HOME="+home), extra...)
}

// TestREADME runs the README's quick start as written: the server command
// from the repository root, then the AWS CLI commands in a shell, as a user
// with no AWS configuration would. Only the port differs (a free one, set
// through EXTENDDB_ADDR and substituted for 8000 in the client commands), so
// the test runs beside anything on 8000.
func TestREADME(t *testing.T) {
	t.Parallel() // slow and self-contained: overlaps the other slow ones
	if runtime.GOOS == "windows" {
		t.Skip("the README's commands are POSIX shell")
	}
	if testing.Short() {
		t.Skip("builds and runs the server with go run")
	}
	blocks := readmeBlocks(t)
	quick := blocks["Quick start"]
	if len(quick) != 2 || !strings.HasPrefix(quick[0], "go run ./cmd/extenddb serve") || !strings.Contains(quick[1], "aws dynamodb") {
		t.Fatalf("README's Quick start should have two sh blocks (the server, then AWS CLI commands); got %q", quick)
	}
	addr := freePort(t)
	_, port, _ := strings.Cut(addr, ":")
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}

	logs := &lockedBuffer{}
	srv := exec.Command("bash", "-c", quick[0])
	srv.Dir = repo
	srv.Env = readmeEnv(t, "EXTENDDB_ADDR=:"+port)
	srv.Stdout, srv.Stderr = logs, logs
	// go run starts the server as a child: stop the whole process group.
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- srv.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-srv.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-srv.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	url := "http://127.0.0.1:" + port + "/"
	deadline := time.Now().Add(5 * time.Minute) // go run compiles first
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the README's server command exited (%v):\n%s", err, logs.String())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the README's server command did not serve within 5 minutes:\n%s", logs.String())
		}
	}
	if !strings.Contains(logs.String(), "extenddb serving") {
		t.Errorf("the start-up line the README mentions is missing:\n%s", logs.String())
	}

	t.Run("AWSCLI", func(t *testing.T) {
		if _, err := exec.LookPath("aws"); err != nil {
			t.Skip("aws (AWS CLI) not on PATH")
		}
		script := strings.ReplaceAll(quick[1], ":8000", ":"+port)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-e", "-c", script)
		cmd.Dir = repo
		cmd.Env = readmeEnv(t)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the README's AWS CLI commands failed: %v\n%s\nserver:\n%s", err, out, logs.String())
		}
		for _, want := range []string{`"TableStatus": "ACTIVE"`, `"Call Me Today"`, `"Music"`} {
			if !strings.Contains(string(out), want) {
				t.Errorf("output lacks %s:\n%s", want, out)
			}
		}
	})

	t.Run("Validate", func(t *testing.T) {
		var ran int
		for _, block := range blocks["Terraform and CloudFormation"] {
			for _, line := range strings.Split(block, "\n") {
				if !strings.Contains(line, " validate ") {
					continue // serve lines are the server above with --load
				}
				ran++
				cmd := exec.Command("bash", "-c", line)
				cmd.Dir = repo
				cmd.Env = readmeEnv(t)
				if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "table ") {
					t.Errorf("%s: %v\n%s", line, err, out)
				}
			}
		}
		if ran == 0 {
			t.Error("README shows no validate command")
		}
	})
}
