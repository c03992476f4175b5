package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestSnapshotCommand: `extenddb snapshot save FILE` writes a running
// server's state, `serve --snapshot FILE` starts another server from it,
// `snapshot restore` and `reset` change a running server's state.
func TestSnapshotCommand(t *testing.T) {
	addr, _, stop, done := startServe(t, "--in-memory")
	defer func() { stop(); <-done }()
	endpoint := "http://" + addr
	client := func(endpoint string) *dynamodb.Client {
		return dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(endpoint), RetryMaxAttempts: 1,
			Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
	}
	cl := client(endpoint)
	ctx := context.Background()
	if _, err := cl.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("Fixture"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	put := func(cl *dynamodb.Client, k string) {
		t.Helper()
		if _, err := cl.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Fixture"),
			Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k}}}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(cl *dynamodb.Client) int {
		t.Helper()
		out, err := cl.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("Fixture")})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Items)
	}
	put(cl, "a")
	snapCmd := func(args ...string) (int, string, string) {
		return run(t, append([]string{"snapshot"}, append(args, "--endpoint", endpoint)...)...)
	}
	file := filepath.Join(t.TempDir(), "fixture.snapshot")
	if code, out, errOut := snapCmd("save", file); code != 0 || !strings.Contains(out, "saved "+file) {
		t.Fatalf("save: %d\n%s%s", code, out, errOut)
	}
	put(cl, "b")
	if code, out, errOut := snapCmd("restore", file); code != 0 || !strings.Contains(out, "restored "+file) {
		t.Fatalf("restore: %d\n%s%s", code, out, errOut)
	}
	if n := count(cl); n != 1 {
		t.Errorf("after restore: %d items, want 1", n)
	}
	if code, out, errOut := snapCmd("keep", "--name", "one"); code != 0 || !strings.Contains(out, "kept the server's state as one") {
		t.Fatalf("keep: %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := snapCmd("reset"); code != 0 || !strings.Contains(out, "dropped every table of the server") {
		t.Fatalf("reset: %d\n%s%s", code, out, errOut)
	}
	if out, err := cl.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil || len(out.TableNames) != 0 {
		t.Errorf("after reset: %v %v", out.TableNames, err)
	}
	if code, out, errOut := snapCmd("restore", "--name", "one"); code != 0 || !strings.Contains(out, "restored the snapshot kept as one") {
		t.Fatalf("restore --name: %d\n%s%s", code, out, errOut)
	}
	if n := count(cl); n != 1 {
		t.Errorf("after restore --name: %d items, want 1", n)
	}
	if code, out, _ := snapCmd("list"); code != 0 || !strings.HasPrefix(out, "one ") {
		t.Errorf("list: %d %q", code, out)
	}

	// A second server starts from the file.
	addr2, _, stop2, done2 := startServe(t, "--in-memory", "--snapshot", file)
	defer func() { stop2(); <-done2 }()
	if n := count(client("http://" + addr2)); n != 1 {
		t.Errorf("serve --snapshot: %d items, want 1", n)
	}

	bad := filepath.Join(t.TempDir(), "bad.snapshot")
	if err := os.WriteFile(bad, []byte("nope"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"save"}, 2, "save needs a FILE"},
		{[]string{"restore"}, 2, "restore needs a FILE"},
		{[]string{"keep"}, 2, "keep needs --name"},
		{[]string{"wipe"}, 2, "give an ACTION"},
		{[]string{"restore", bad}, 1, "not an ExtendDB snapshot"},
		{[]string{"restore", "--name", "nope"}, 1, "no snapshot is kept as nope"},
	} {
		code, _, errOut := snapCmd(c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d %q; want %d %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}

// TestSnapshotCommandSigns: under --auth=sigv4 `extenddb snapshot` signs
// its requests with the environment's key, a restore's body included;
// without a key it is refused.
func TestSnapshotCommandSigns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "creds.yaml")
	if err := os.WriteFile(path, []byte(`users:
  - accessKeyId: AKIAOPS
    secretAccessKey: ops-secret
    account: "111111111111"
    policies:
      - {Statement: [{Effect: Allow, Action: "extenddb:*", Resource: "*"}]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	addr, _, stop, done := startServe(t, "--in-memory", "--auth=sigv4", "--credentials", path)
	defer func() { stop(); <-done }()
	endpoint := "http://" + addr
	file := filepath.Join(t.TempDir(), "s.snapshot")
	signed := env("HOME", t.TempDir(), "AWS_ACCESS_KEY_ID", "AKIAOPS", "AWS_SECRET_ACCESS_KEY", "ops-secret")
	if code, _, errOut := runEnv(t, env("HOME", t.TempDir()), "snapshot", "save", file, "--endpoint", endpoint); code != 1 || !strings.Contains(errOut, "MissingAuthenticationToken") {
		t.Errorf("save without credentials: exit %d\n%s", code, errOut)
	}
	for _, args := range [][]string{
		{"snapshot", "save", file, "--endpoint", endpoint},
		{"snapshot", "restore", file, "--endpoint", endpoint},
		{"snapshot", "reset", "--endpoint", endpoint},
	} {
		if code, out, errOut := runEnv(t, signed, args...); code != 0 {
			t.Errorf("%v signed: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}
