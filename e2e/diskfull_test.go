//go:build linux

package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// TestFullDisk runs the binary on a 16 MiB tmpfs the test mounts (skipped
// where mounting is not permitted): once the disk is full, PutItem gets
// InternalServerError at once and GetItem still works; when space returns,
// writes succeed again without a restart; and SIGTERM on a full disk ends
// the process without a panic or a hang.
func TestFullDisk(t *testing.T) {
	t.Parallel() // slow and self-contained: overlaps the other slow ones
	if testing.Short() {
		t.Skip("builds the binary")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, 0); err != nil {
			_ = syscall.Unmount(mnt, syscall.MNT_DETACH)
		}
	})
	bin := buildBinary(t)
	s := start(t, bin, "--data-dir", filepath.Join(mnt, "data"))
	c := s.client()
	createTable(t, c, "full")
	// The ballast leaves a few items' room, measured once the store has
	// written its log: Pebble preallocates the log when it first writes it
	// (a flush up to 100 ms after the first commit), by an amount that
	// depends on its settings, and a fixed ballast once left no room for
	// the first item.
	free := func() int64 {
		var fs syscall.Statfs_t
		if err := syscall.Statfs(mnt, &fs); err != nil {
			t.Fatal(err)
		}
		return int64(fs.Bavail) * int64(fs.Bsize)
	}
	empty := free()
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("full"),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "warm"}}}); err != nil {
		t.Fatal(err)
	}
	for wait := time.Now().Add(10 * time.Second); free() == empty; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(wait) {
			t.Fatal("the store wrote nothing to its disk 10 s after a PutItem")
		}
	}
	room := free() - 1<<20
	if room <= 0 {
		t.Fatalf("the store's log took all but %d bytes of the 16 MiB tmpfs", free())
	}
	ballast := filepath.Join(mnt, "ballast")
	if err := os.WriteFile(ballast, make([]byte, room), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	put := func(pk string, size int) error {
		v := make([]byte, size)
		for i := range v {
			v[i] = byte(rng.Uint32())
		}
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("full"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk}, "v": &types.AttributeValueMemberB{Value: v}}})
		return err
	}
	fill := func(round string) {
		t.Helper()
		for i := range 200 {
			start := time.Now()
			err := put(fmt.Sprint(round, i), 300<<10)
			if err == nil {
				continue
			}
			var ae smithy.APIError
			if !errors.As(err, &ae) || ae.ErrorCode() != "InternalServerError" || ae.ErrorMessage() != "Internal server error" {
				t.Fatalf("PutItem on a full disk: %v; want InternalServerError", err)
			}
			t.Logf("%s: PutItem %d refused after %v", round, i, time.Since(start))
			return
		}
		t.Fatalf("%s: the disk never filled", round)
	}
	get := func(pk string) {
		t.Helper()
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("full"), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}})
		if err != nil || out.Item == nil {
			t.Fatalf("GetItem %s on a full disk: %v", pk, err)
		}
	}

	fill("first")
	get("first0")
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := put("after", 10)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("PutItem still failing 30s after space returned: %v\n%s", err, s.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	get("after")

	fill("second")
	err := s.stop(t, syscall.SIGTERM) // fails the test if it takes over 30s
	logs := s.stderr.String()
	t.Logf("exit on a full disk: %v; last log lines:\n%s", err, tail(logs, 3))
	if strings.Contains(logs, "panic") || strings.Contains(logs, "goroutine ") {
		t.Fatalf("the server panicked:\n%s", logs)
	}
	// 0, or 1 when writes held for space were given up (the log says so);
	// never a death by signal.
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(logs, "closed on a full disk")) {
		t.Fatalf("exit on a full disk: %v", err)
	}
	if !strings.Contains(logs, "disk full, writes are refused until space returns") || !strings.Contains(logs, "disk space returned, writes resume") {
		t.Errorf("logs do not say the disk filled and space returned:\n%s", logs)
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
