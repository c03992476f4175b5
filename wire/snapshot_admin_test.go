package wire_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/wire"
)

// adminCall sends one control request (signed with key and secret unless
// key is empty) and returns its status and body.
func adminCall(t *testing.T, s *testserver.Server, method, path string, body []byte, key, secret string) (int, []byte) {
	t.Helper()
	r, err := http.NewRequest(method, s.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:])
		r.Header.Set("X-Amz-Content-Sha256", hash)
		if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret},
			r, hash, "dynamodb", "us-east-1", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := s.HTTPClient().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func itemCount(t *testing.T, c *dynamodb.Client, table string) int {
	t.Helper()
	out, err := c.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	if err != nil {
		t.Fatal(err)
	}
	return int(out.Count)
}

func putKV(t *testing.T, c *dynamodb.Client, table, k string) {
	t.Helper()
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table),
		Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k}}}); err != nil {
		t.Fatal(err)
	}
}

func tableNames(t *testing.T, c *dynamodb.Client) []string {
	t.Helper()
	out, err := c.ListTables(context.Background(), &dynamodb.ListTablesInput{})
	if err != nil {
		t.Fatal(err)
	}
	return out.TableNames
}

// TestSnapshotControls: keep, list, download, restore (by name and from a
// file), and reset of the server or of one namespace, over HTTP.
func TestSnapshotControls(t *testing.T) {
	s := testserver.New(t)
	east, west := s.ClientFor("us-east-1", "AKIDEXAMPLE"), s.ClientFor("eu-west-1", "AKIDEXAMPLE")
	createKV(t, east, "Tab")
	createKV(t, west, "West")
	putKV(t, east, "Tab", "a")

	ok := func(method, path string, body []byte) []byte {
		t.Helper()
		code, b := adminCall(t, s, method, path, body, "", "")
		if code != http.StatusOK {
			t.Fatalf("%s %s: %d %s", method, path, code, b)
		}
		return b
	}
	ok(http.MethodPost, wire.SnapshotAdminPath+"?name=base", nil)
	var list struct{ Snapshots []wire.SnapshotInfo }
	if err := json.Unmarshal(ok(http.MethodGet, wire.SnapshotsAdminPath, nil), &list); err != nil || len(list.Snapshots) != 1 || list.Snapshots[0].Name != "base" || list.Snapshots[0].Keys == 0 {
		t.Errorf("kept snapshots: %+v (%v)", list, err)
	}
	file := ok(http.MethodGet, wire.SnapshotAdminPath, nil)

	putKV(t, east, "Tab", "b")
	ok(http.MethodPost, wire.RestoreAdminPath+"?name=base", nil)
	if n := itemCount(t, east, "Tab"); n != 1 {
		t.Errorf("after restoring base: %d items, want 1", n)
	}

	// A namespace's reset leaves the others alone.
	ok(http.MethodPost, wire.ResetAdminPath+"?region=eu-west-1", nil)
	if got := tableNames(t, west); len(got) != 0 {
		t.Errorf("eu-west-1 after its reset: %v", got)
	}
	if got := tableNames(t, east); len(got) != 1 {
		t.Errorf("us-east-1 after eu-west-1's reset: %v", got)
	}
	// The server's reset drops everything.
	ok(http.MethodPost, wire.ResetAdminPath, nil)
	if got := tableNames(t, east); len(got) != 0 {
		t.Errorf("us-east-1 after the server's reset: %v", got)
	}
	// The downloaded file restores both namespaces.
	ok(http.MethodPost, wire.RestoreAdminPath, file)
	if n := itemCount(t, east, "Tab"); n != 1 {
		t.Errorf("after restoring the file: %d items, want 1", n)
	}
	if got := tableNames(t, west); len(got) != 1 {
		t.Errorf("eu-west-1 after restoring the file: %v", got)
	}

	for _, c := range []struct {
		path string
		body []byte
		code int
		msg  string
	}{
		{wire.RestoreAdminPath + "?name=nope", nil, http.StatusNotFound, "no snapshot is kept as nope"},
		{wire.RestoreAdminPath, []byte("not a snapshot"), http.StatusBadRequest, "not an ExtendDB snapshot"},
		{wire.RestoreAdminPath, file[:len(file)-1], http.StatusBadRequest, "not an ExtendDB snapshot"},
		{wire.RestoreAdminPath, nil, http.StatusBadRequest, "give name=N"},
		{wire.SnapshotAdminPath, nil, http.StatusBadRequest, "name=N is required"},
	} {
		code, b := adminCall(t, s, http.MethodPost, c.path, c.body, "", "")
		if code != c.code || !strings.Contains(string(b), c.msg) {
			t.Errorf("POST %s (%d bytes): %d %s; want %d %q", c.path, len(c.body), code, b, c.code, c.msg)
		}
	}
	// A refused restore changed nothing.
	if n := itemCount(t, east, "Tab"); n != 1 {
		t.Errorf("after refused restores: %d items, want 1", n)
	}
}

// snapshotCredentials: root may use every snapshot control on the whole
// server; ops may reset its own account's tables only; dev holds no
// ExtendDB action.
const snapshotCredentials = `
users:
  - accessKeyId: AKIAROOT
    secretAccessKey: root-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/root
    policies:
      - {Version: "2012-10-17", Statement: [{Effect: Allow, Action: ["dynamodb:*", "extenddb:*"], Resource: "*"}]}
  - accessKeyId: AKIAOPS
    secretAccessKey: ops-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/ops
    policies:
      - {Version: "2012-10-17", Statement: [
          {Effect: Allow, Action: "dynamodb:*", Resource: "*"},
          {Effect: Allow, Action: ["extenddb:Snapshot", "extenddb:Restore", "extenddb:Reset"], Resource: "arn:aws:dynamodb:*:111111111111:table/*"}]}
  - accessKeyId: AKIADEV
    secretAccessKey: dev-secret
    account: "111111111111"
    arn: arn:aws:iam::111111111111:user/dev
    policies:
      - {Version: "2012-10-17", Statement: [{Effect: Allow, Action: "dynamodb:*", Resource: "*"}]}
`

// TestSnapshotControlsNeedSigV4: under --auth=sigv4 the snapshot controls
// are no open door: unsigned, badly signed and unauthorized requests are
// refused, a server-wide control needs its action on every account's
// tables, a namespace's reset on that namespace's.
func TestSnapshotControlsNeedSigV4(t *testing.T) {
	creds, err := wire.ParseCredentials([]byte(snapshotCredentials))
	if err != nil {
		t.Fatal(err)
	}
	s := testserver.New(t, testserver.WithWireOptions(func(o *wire.Options) { o.Credentials = creds }))
	root := s.ClientWith("us-east-1", static("AKIAROOT", "root-secret"))
	createKV(t, root, "Tab")
	putKV(t, root, "Tab", "a")
	code, file := adminCall(t, s, http.MethodGet, wire.SnapshotAdminPath, nil, "AKIAROOT", "root-secret")
	if code != http.StatusOK {
		t.Fatalf("root's download: %d %s", code, file)
	}

	for _, c := range []struct {
		method, path, action string
		body                 []byte
	}{
		{http.MethodGet, wire.SnapshotAdminPath, "extenddb:Snapshot", nil},
		{http.MethodPost, wire.SnapshotAdminPath + "?name=x", "extenddb:Snapshot", nil},
		{http.MethodGet, wire.SnapshotsAdminPath, "extenddb:Snapshot", nil},
		{http.MethodPost, wire.RestoreAdminPath, "extenddb:Restore", file},
		{http.MethodPost, wire.ResetAdminPath, "extenddb:Reset", nil},
		{http.MethodPost, wire.ResetAdminPath + "?account=222222222222", "extenddb:Reset", nil},
	} {
		name := c.method + " " + c.path
		if code, b := adminCall(t, s, c.method, c.path, c.body, "", ""); code != http.StatusForbidden || !strings.Contains(string(b), "MissingAuthenticationToken") {
			t.Errorf("%s unsigned: %d %s", name, code, b)
		}
		if code, b := adminCall(t, s, c.method, c.path, c.body, "AKIAROOT", "wrong"); code != http.StatusForbidden || !strings.Contains(string(b), "signature") {
			t.Errorf("%s with a wrong secret: %d %s", name, code, b)
		}
		for _, who := range []string{"dev", "ops"} {
			code, b := adminCall(t, s, c.method, c.path, c.body, "AKIA"+strings.ToUpper(who), who+"-secret")
			if code != http.StatusForbidden || !strings.Contains(string(b), "user/"+who+" is not authorized to perform: "+c.action) {
				t.Errorf("%s by %s: %d %s", name, who, code, b)
			}
		}
	}
	// Nothing refused changed the state.
	if n := itemCount(t, root, "Tab"); n != 1 {
		t.Fatalf("%d items after refused controls, want 1", n)
	}
	// ops may reset its own namespace (the signer's by default)…
	if code, b := adminCall(t, s, http.MethodPost, wire.ResetAdminPath+"?region=us-east-1", nil, "AKIAOPS", "ops-secret"); code != http.StatusOK {
		t.Fatalf("ops's reset of its namespace: %d %s", code, b)
	}
	if got := tableNames(t, root); len(got) != 0 {
		t.Errorf("after ops's reset: %v", got)
	}
	// …and root may restore the whole server, from a signed body.
	if code, b := adminCall(t, s, http.MethodPost, wire.RestoreAdminPath, file, "AKIAROOT", "root-secret"); code != http.StatusOK {
		t.Fatalf("root's restore: %d %s", code, b)
	}
	if n := itemCount(t, root, "Tab"); n != 1 {
		t.Errorf("%d items after root's restore, want 1", n)
	}
}
