package emulator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
)

// Kinesis streaming destinations through the SDK: the four operations,
// their statuses and transitions, the rules and messages (API Reference,
// EnableKinesisStreamingDestination and UpdateKinesisStreamingDestination;
// docs/differences.md, "Kinesis streaming destinations"), validation,
// persistence across a restart.

const (
	kdsStream  = "arn:aws:kinesis:us-east-1:" + sdkAccount + ":stream/orders"
	kdsStream2 = "arn:aws:kinesis:us-east-1:" + sdkAccount + ":stream/other"
)

func kdsDescribe(t *testing.T, c *dynamodb.Client, table string) []types.KinesisDataStreamDestination {
	t.Helper()
	d, err := c.DescribeKinesisStreamingDestination(context.Background(), &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	if want := table[strings.LastIndex(table, "/")+1:]; aws.ToString(d.TableName) != want {
		t.Fatalf("TableName = %q", aws.ToString(d.TableName))
	}
	return d.KinesisDataStreamDestinations
}

func kdsOne(t *testing.T, c *dynamodb.Client, table string) types.KinesisDataStreamDestination {
	t.Helper()
	ds := kdsDescribe(t, c, table)
	if len(ds) != 1 {
		t.Fatalf("destinations = %+v, want one", ds)
	}
	return ds[0]
}

func TestKinesisDestinationLifecycle(t *testing.T) {
	s, c := sdkServer(t)
	ctx := context.Background()
	if ds := kdsDescribe(t, c, "txt"); len(ds) != 0 {
		t.Fatalf("new table has destinations %+v", ds)
	}
	en, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream)})
	if err != nil {
		t.Fatal(err)
	}
	// Enable answers ENABLING with an empty configuration even when none was sent.
	if en.DestinationStatus != types.DestinationStatusEnabling || aws.ToString(en.StreamArn) != kdsStream || aws.ToString(en.TableName) != "txt" || en.EnableKinesisStreamingConfiguration == nil {
		t.Fatalf("Enable = %+v", en)
	}
	d := kdsOne(t, c, "txt")
	if d.DestinationStatus != types.DestinationStatusActive || d.ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMillisecond || aws.ToString(d.StreamArn) != kdsStream {
		t.Fatalf("after enable: %+v", d)
	}

	// Enabling it again, or a second stream, is refused while it is active.
	_, err = c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream)})
	apiErr(t, err, "ValidationException", "Table is not in a valid state to enable Kinesis Streaming Destination:EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform ENABLE operation.")
	_, err = c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream2)})
	rpCode(t, err, "LimitExceededException", "Table txt already has a Kinesis streaming destination "+kdsStream)

	// Update: UPDATING, then the new precision; the same precision again is refused.
	up, err := c.UpdateKinesisStreamingDestination(ctx, &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream),
		UpdateKinesisStreamingConfiguration: &types.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecisionMicrosecond}})
	if err != nil || up.DestinationStatus != types.DestinationStatusUpdating || up.UpdateKinesisStreamingConfiguration.ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMicrosecond {
		t.Fatalf("Update = %+v, %v", up, err)
	}
	if d := kdsOne(t, c, "txt"); d.DestinationStatus != types.DestinationStatusActive || d.ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMicrosecond {
		t.Fatalf("after update: %+v", d)
	}
	desc, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("txt")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateKinesisStreamingDestination(ctx, &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream),
		UpdateKinesisStreamingConfiguration: &types.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecisionMicrosecond}})
	apiErr(t, err, "ValidationException", "Invalid Request: Precision is already set to the desired value of MICROSECOND for tableId: "+aws.ToString(desc.Table.TableId)+", kdsArn: "+kdsStream)

	// The destination survives a restart.
	s.Restart()
	c = s.ClientFor("us-east-1", sdkAccount)
	if d := kdsOne(t, c, "txt"); d.DestinationStatus != types.DestinationStatusActive || d.ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMicrosecond {
		t.Fatalf("after restart: %+v", d)
	}

	// Disable: DISABLING, then DISABLED, still listed; disabling again is refused.
	dis, err := c.DisableKinesisStreamingDestination(ctx, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream)})
	if err != nil || dis.DestinationStatus != types.DestinationStatusDisabling {
		t.Fatalf("Disable = %+v, %v", dis, err)
	}
	if d := kdsOne(t, c, "txt"); d.DestinationStatus != types.DestinationStatusDisabled {
		t.Fatalf("after disable: %+v", d)
	}
	_, err = c.DisableKinesisStreamingDestination(ctx, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream)})
	apiErr(t, err, "ValidationException", "Table is not in a valid state to disable Kinesis Streaming Destination:DisableKinesisStreamingDestination must be ACTIVE to perform DISABLE operation.")
	_, err = c.UpdateKinesisStreamingDestination(ctx, &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream),
		UpdateKinesisStreamingConfiguration: &types.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecisionMillisecond}})
	apiErr(t, err, "ValidationException", "Table is not in a valid state to update Kinesis Streaming Destination:UpdateKinesisStreamingDestination must be ACTIVE to perform UPDATE operation.")

	// Another stream may now be enabled; the old entry stays DISABLED.
	if _, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream2),
		EnableKinesisStreamingConfiguration: &types.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecisionMicrosecond}}); err != nil {
		t.Fatal(err)
	}
	if ds := kdsDescribe(t, c, "txt"); len(ds) != 2 || ds[0].DestinationStatus != types.DestinationStatusDisabled || ds[1].DestinationStatus != types.DestinationStatusActive ||
		ds[1].ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMicrosecond {
		t.Fatalf("two destinations: %+v", ds)
	}
	// Re-enabling the first reuses its entry (Terraform relies on it).
	if _, err := c.DisableKinesisStreamingDestination(ctx, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream2)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream)}); err != nil {
		t.Fatal(err)
	}
	if ds := kdsDescribe(t, c, "txt"); len(ds) != 2 || aws.ToString(ds[0].StreamArn) != kdsStream || ds[0].DestinationStatus != types.DestinationStatusActive ||
		ds[0].ApproximateCreationDateTimePrecision != types.ApproximateCreationDateTimePrecisionMillisecond {
		t.Fatalf("re-enabled: %+v", ds)
	}
	// A table ARN works as TableName.
	if ds := kdsDescribe(t, c, rpARN); len(ds) != 2 {
		t.Fatalf("by ARN: %+v", ds)
	}
}

func TestKinesisDestinationTransitionDelay(t *testing.T) {
	clk := &stepClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := testserver.New(t, testserver.WithClock(clk), testserver.WithTransitionDelay(10*time.Second))
	c := s.ClientFor("us-east-1", sdkAccount)
	ctx := context.Background()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("txt"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	// CREATING refuses an enable.
	_, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream)})
	apiErr(t, err, "ResourceInUseException", "Attempt to change a resource which is still in use: Table is being created: txt")
	clk.add(11 * time.Second)
	steps := []struct {
		do   func() error
		mid  types.DestinationStatus
		done types.DestinationStatus
	}{
		{func() error {
			_, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream)})
			return err
		}, types.DestinationStatusEnabling, types.DestinationStatusActive},
		{func() error {
			_, err := c.UpdateKinesisStreamingDestination(ctx, &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream),
				UpdateKinesisStreamingConfiguration: &types.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecisionMicrosecond}})
			return err
		}, types.DestinationStatusUpdating, types.DestinationStatusActive},
		{func() error {
			_, err := c.DisableKinesisStreamingDestination(ctx, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream)})
			return err
		}, types.DestinationStatusDisabling, types.DestinationStatusDisabled},
	}
	for i, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if d := kdsOne(t, c, "txt"); d.DestinationStatus != st.mid {
			t.Fatalf("step %d: status %s, want %s", i, d.DestinationStatus, st.mid)
		}
		if i == 0 {
			// Disabling while ENABLING is refused.
			_, err := c.DisableKinesisStreamingDestination(ctx, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream)})
			apiErr(t, err, "ValidationException", "Table is not in a valid state to disable Kinesis Streaming Destination:DisableKinesisStreamingDestination must be ACTIVE to perform DISABLE operation.")
		}
		clk.add(10 * time.Second)
		if d := kdsOne(t, c, "txt"); d.DestinationStatus != st.done {
			t.Fatalf("step %d: status %s, want %s", i, d.DestinationStatus, st.done)
		}
	}
}

func TestKinesisDestinationErrors(t *testing.T) {
	_, c := sdkServer(t)
	ctx := context.Background()
	long := "arn:aws:kinesis:us-east-1:" + sdkAccount + ":stream/" // no stream name
	cases := []struct {
		name string
		call func() error
		code string
		msg  string
	}{
		{"unknown table", func() error {
			_, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("nope"), StreamArn: aws.String(kdsStream)})
			return err
		}, "ResourceNotFoundException", "Requested resource not found: Table: nope not found"},
		{"describe unknown table", func() error {
			_, err := c.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("nope")})
			return err
		}, "ResourceNotFoundException", "Requested resource not found: Table: nope not found"},
		{"disable unknown table", func() error {
			_, err := c.DisableKinesisStreamingDestination(ctx, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String("nope"), StreamArn: aws.String(kdsStream)})
			return err
		}, "ResourceNotFoundException", "Requested resource not found: Table: nope not found"},
		{"short stream ARN", func() error {
			_, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String("arn:aws:kinesis:x")})
			return err
		}, "ValidationException", "1 validation error detected: Value 'arn:aws:kinesis:x' at 'streamArn' failed to satisfy constraint: Member must have length greater than or equal to 37"},
		{"bad precision", func() error {
			_, err := c.UpdateKinesisStreamingDestination(ctx, &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream),
				UpdateKinesisStreamingConfiguration: &types.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: "SECOND"}})
			return err
		}, "ValidationException", "1 validation error detected: Value 'SECOND' at 'updateKinesisStreamingConfiguration.approximateCreationDateTimePrecision' failed to satisfy constraint: Member must satisfy enum value set: [MILLISECOND, MICROSECOND]"},
		{"bad enable precision", func() error {
			_, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream),
				EnableKinesisStreamingConfiguration: &types.EnableKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: "SECOND"}})
			return err
		}, "ValidationException", "1 validation error detected: Value 'SECOND' at 'enableKinesisStreamingConfiguration.approximateCreationDateTimePrecision' failed to satisfy constraint: Member must satisfy enum value set: [MILLISECOND, MICROSECOND]"},
		{"update without configuration", func() error {
			_, err := c.UpdateKinesisStreamingDestination(ctx, &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: aws.String("nope"), StreamArn: aws.String(kdsStream)})
			return err
		}, "ValidationException", "Streaming destination cannot be updated with given parameters: UpdateKinesisStreamingConfiguration cannot be null or contain only null values"},
		{"update unknown stream", func() error {
			_, err := c.UpdateKinesisStreamingDestination(ctx, &dynamodb.UpdateKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream),
				UpdateKinesisStreamingConfiguration: &types.UpdateKinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: types.ApproximateCreationDateTimePrecisionMicrosecond}})
			return err
		}, "ValidationException", "Table is not in a valid state to enable Kinesis Streaming Destination: No streaming destination with streamArn: " + kdsStream + " found for table with tableName: txt"},
		{"disable unknown stream", func() error {
			_, err := c.DisableKinesisStreamingDestination(ctx, &dynamodb.DisableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(kdsStream)})
			return err
		}, "ValidationException", "Table is not in a valid state to disable Kinesis Streaming Destination: No streaming destination with streamArn: " + kdsStream + " found for table with tableName: txt"},
		{"not a stream ARN", func() error {
			_, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String("arn:aws:sqs:us-east-1:" + sdkAccount + ":queue/orders")})
			return err
		}, "ValidationException", "Invalid StreamArn: arn:aws:sqs:us-east-1:" + sdkAccount + ":queue/orders is not a Kinesis data stream ARN"},
		{"empty stream name", func() error {
			_, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String(long)})
			return err
		}, "ValidationException", "Invalid StreamArn: " + long + " is not a Kinesis data stream ARN"},
		{"other Region", func() error {
			_, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String("arn:aws:kinesis:eu-west-1:" + sdkAccount + ":stream/orders")})
			return err
		}, "ValidationException", "Invalid StreamArn: the Kinesis data stream arn:aws:kinesis:eu-west-1:" + sdkAccount + ":stream/orders must be in the same account and Region as the table " + rpARN},
		{"other account", func() error {
			_, err := c.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("txt"), StreamArn: aws.String("arn:aws:kinesis:us-east-1:444455556666:stream/orders")})
			return err
		}, "ValidationException", "Invalid StreamArn: the Kinesis data stream arn:aws:kinesis:us-east-1:444455556666:stream/orders must be in the same account and Region as the table " + rpARN},
		{"table ARN of another Region", func() error {
			_, err := c.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("arn:aws:dynamodb:eu-west-1:" + sdkAccount + ":table/txt")})
			return err
		}, "ValidationException", "1 validation error detected: Invalid AWS region in 'arn:aws:dynamodb:eu-west-1:" + sdkAccount + ":table/txt'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { apiErr(t, tc.call(), tc.code, tc.msg) })
	}
}

// A destination belongs to its table: a new replica in another Region and
// a table restored from a backup start without one.
func TestKinesisDestinationNotInherited(t *testing.T) {
	f := newGlobalFixture(t)
	ctx := t.Context()
	d := f.describe(t, f.home)
	acct := strings.Split(aws.ToString(d.TableArn), ":")[4]
	if _, err := f.home.EnableKinesisStreamingDestination(ctx, &dynamodb.EnableKinesisStreamingDestinationInput{TableName: aws.String("gtab"),
		StreamArn: aws.String("arn:aws:kinesis:us-east-1:" + acct + ":stream/home")}); err != nil {
		t.Fatal(err)
	}
	f.addReplica(t)
	if ds := kdsDescribe(t, f.repl, "gtab"); len(ds) != 0 {
		t.Fatalf("the replica inherited %+v", ds)
	}
	b := bkBackup(t, f.home, "gtab", "bk1")
	emulator.WaitBackups(f.s.Engine()) // a backup still CREATING is BackupInUseException
	bkRestore(t, f.s, f.home, &dynamodb.RestoreTableFromBackupInput{BackupArn: b.BackupArn, TargetTableName: aws.String("restored")})
	if ds := kdsDescribe(t, f.home, "restored"); len(ds) != 0 {
		t.Fatalf("the restored table inherited %+v", ds)
	}
	if ds := kdsDescribe(t, f.home, "gtab"); len(ds) != 1 {
		t.Fatalf("the source lost its destination: %+v", ds)
	}
}
