package emulator_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/pebblestore"
)

// A full disk, as a client sees it: writes fail promptly with DynamoDB's
// InternalServerError (500, retried by the SDKs), reads keep working, and
// writes succeed again once space returns, without a restart.

// noSpace injects ENOSPC into every space-taking filesystem operation
// while on, as a full filesystem does (removals and syncs still succeed).
type noSpace struct{ on atomic.Bool }

func (d *noSpace) String() string { return "full disk" }

func (d *noSpace) MaybeError(op errorfs.Op) error {
	if !d.on.Load() {
		return nil
	}
	switch op.Kind {
	case errorfs.OpCreate, errorfs.OpLink, errorfs.OpReuseForWrite, errorfs.OpMkdirAll,
		errorfs.OpFilePreallocate, errorfs.OpFileWrite, errorfs.OpFileWriteAt:
		return &os.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
	}
	return nil
}

// fullDiskStore is the store options of these tests: a quick retry, and a
// write timeout long enough that a prompt failure cannot come from it.
func fullDiskStore(fs func(vfs.FS) vfs.FS) testserver.Option {
	return testserver.WithStoreOptions(func(o *pebblestore.Options) {
		if o.FS == nil {
			o.FS = vfs.Default
		}
		if fs != nil {
			o.FS = fs(o.FS)
		}
		o.DiskFullRetry = 20 * time.Millisecond
		o.WriteTimeout = time.Minute
	})
}

func createDiskTable(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	_, err := c.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:            aws.String("disk"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
}

// bounded calls f, failing the test if it is still running after a
// minute: what a full disk used to do to a write was hang.
func bounded[T any](t *testing.T, what string, f func() (T, error)) (T, error) {
	t.Helper()
	type res struct {
		v   T
		err error
	}
	ch := make(chan res, 1)
	go func() { v, err := f(); ch <- res{v, err} }()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-time.After(time.Minute):
		t.Fatalf("%s: no answer after a minute", what)
		panic("unreachable")
	}
}

func putDisk(t *testing.T, c *dynamodb.Client, pk string, size int) error {
	t.Helper()
	_, err := bounded(t, "PutItem "+pk, func() (*dynamodb.PutItemOutput, error) {
		return c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("disk"), Item: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: pk},
			"v":  &types.AttributeValueMemberB{Value: randomBytes(size)},
		}})
	})
	return err
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	x := uint64(time.Now().UnixNano()) | 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}

// fillUntilRefused writes items of size bytes until one is refused, and
// checks the refusal is DynamoDB's InternalServerError as a client sees it.
func fillUntilRefused(t *testing.T, c *dynamodb.Client, size, most int) {
	t.Helper()
	for i := range most {
		start := time.Now()
		err := putDisk(t, c, fmt.Sprint("fill", i), size)
		if err == nil {
			continue
		}
		took := time.Since(start)
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "InternalServerError" || ae.ErrorMessage() != "Internal server error" {
			t.Fatalf("PutItem on a full disk: %v; want InternalServerError: Internal server error", err)
		}
		var re *awshttp.ResponseError
		if !errors.As(err, &re) || re.HTTPStatusCode() != 500 {
			t.Fatalf("PutItem on a full disk: status of %v; want 500", err)
		}
		if !retry.NewStandard().IsErrorRetryable(err) {
			t.Fatalf("the SDK's standard retryer does not retry %v", err)
		}
		t.Logf("PutItem %d refused after %v", i, took)
		// From now on every write is refused at once.
		for j := range 3 {
			if err := putDisk(t, c, fmt.Sprint("refused", j), 10); err == nil {
				t.Fatalf("PutItem %d succeeded on a full disk", j)
			}
		}
		return
	}
	t.Fatalf("%d PutItems of %d bytes all succeeded: the disk never filled", most, size)
}

func getDisk(t *testing.T, c *dynamodb.Client, pk string) error {
	t.Helper()
	out, err := bounded(t, "GetItem "+pk, func() (*dynamodb.GetItemOutput, error) {
		return c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("disk"), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}})
	})
	if err == nil && out.Item == nil {
		err = fmt.Errorf("item %s missing", pk)
	}
	return err
}

// awaitWrites polls PutItem until one succeeds: space returned, the store
// resumes on its own within a retry interval.
func awaitWrites(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := putDisk(t, c, "after", 10)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("PutItem still failing after space returned: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := getDisk(t, c, "after"); err != nil {
		t.Fatal(err)
	}
}

func TestFullDiskSDK(t *testing.T) {
	for _, sync := range []bool{true, false} {
		t.Run(fmt.Sprintf("sync=%v", sync), func(t *testing.T) {
			disk := &noSpace{}
			s := testserver.New(t,
				fullDiskStore(func(fs vfs.FS) vfs.FS { return errorfs.Wrap(fs, disk) }),
				testserver.WithEngineOptions(func(o *emulator.Options) { o.Sync = sync }))
			c := s.Client
			createDiskTable(t, c)
			if err := putDisk(t, c, "before", 100); err != nil {
				t.Fatal(err)
			}
			disk.on.Store(true)
			fillUntilRefused(t, c, 1000, 2000)
			if err := getDisk(t, c, "before"); err != nil {
				t.Fatalf("GetItem on a full disk: %v", err)
			}
			if _, err := bounded(t, "Scan", func() (*dynamodb.ScanOutput, error) {
				return c.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String("disk")})
			}); err != nil {
				t.Fatalf("Scan on a full disk: %v", err)
			}
			disk.on.Store(false)
			awaitWrites(t, c)
		})
	}
}
