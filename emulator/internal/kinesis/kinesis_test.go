package kinesis

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/av"
)

// A destination delivers from the enable on (while ENABLING, once it is
// to settle ACTIVE) until the disable.
func TestDestinationDelivers(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	later := now.Add(time.Minute)
	for _, tc := range []struct {
		d    Destination
		want bool
	}{
		{Destination{Status: statusActive}, true},
		{Destination{Status: statusActive, Pending: statusEnabling, Until: later}, true},
		{Destination{Status: statusEnableFailed, Pending: statusEnabling, Until: later}, false},
		{Destination{Status: statusActive, Pending: statusUpdating, Until: later}, true},
		{Destination{Status: statusDisabled, Pending: statusDisabling, Until: later}, false},
		{Destination{Status: statusDisabled}, false},
	} {
		if got := tc.d.delivers(now); got != tc.want {
			t.Errorf("%+v: delivers = %v, want %v", tc.d, got, tc.want)
		}
	}
}

// The record carries both images, the keys, the table's name and a
// partition key shared by every change of one item.
func TestBuildRecord(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_123).Add(456 * time.Microsecond)
	src := &Source{Name: "T", Region: "eu-west-1", Hash: "pk", Range: "sk"}
	item := func(v string) av.Item {
		return av.Item{"pk": {Type: av.TypeS, S: "a"}, "sk": {Type: av.TypeN, S: "1"}, "v": {Type: av.TypeS, S: v}}
	}
	ins, pk1, ok := buildRecord(src, &Change{New: item("x")}, PrecisionMicro, now)
	if !ok {
		t.Fatal("insert built no record")
	}
	_, pk2, ok := buildRecord(src, &Change{Old: item("x"), New: item("y")}, PrecisionMilli, now)
	if !ok || pk1 != pk2 || len(pk1) != 32 || strings.ToUpper(pk1) != pk1 {
		t.Fatalf("partition keys %q, %q", pk1, pk2)
	}
	if _, _, ok := buildRecord(src, &Change{Old: item("x"), New: item("x")}, PrecisionMilli, now); ok {
		t.Fatal("an unchanged item built a record")
	}
	var rec struct {
		AwsRegion, EventName, TableName, RecordFormat, EventSource string
		Dynamodb                                                   struct {
			ApproximateCreationDateTime int64
			Keys                        map[string]any
			NewImage                    map[string]any
		}
	}
	if err := json.Unmarshal(ins, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.EventName != "INSERT" || rec.TableName != "T" || rec.AwsRegion != "eu-west-1" || rec.RecordFormat != "application/json" || rec.EventSource != "aws:dynamodb" {
		t.Fatalf("record %s", ins)
	}
	if rec.Dynamodb.ApproximateCreationDateTime != now.UnixMicro() || len(rec.Dynamodb.Keys) != 2 || len(rec.Dynamodb.NewImage) != 3 {
		t.Fatalf("record %s", ins)
	}
}
