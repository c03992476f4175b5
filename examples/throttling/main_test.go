package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/internal/testserver"
	"github.com/extenddb/extenddb/wire"
)

// TestExample runs the program against an in-process server, passing the
// endpoint by flag as a user would. The server keeps the wall clock: the
// table's 5 units are gone after a handful of writes, long before a few
// milliseconds of refill add up to another.
func TestExample(t *testing.T) {
	s := testserver.New(t)
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--endpoint", s.URL, "--table", "Demo"}, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"throttled: ProvisionedThroughputExceededException\n",
		"reason: TableWriteProvisionedThroughputExceeded\n",
		"resource: arn:aws:dynamodb:us-east-1:" + wire.DefaultAccount + ":table/Demo\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output %q lacks %q", got, want)
		}
	}
	// GSI back-pressure: the index's ARN, and the sparse write served.
	for _, want := range []string{
		"GSI back-pressure on Demo-gsi",
		"throttled: ProvisionedThroughputExceededException\nreason: IndexWriteProvisionedThroughputExceeded\n" +
			"resource: arn:aws:dynamodb:us-east-1:" + wire.DefaultAccount + ":table/Demo-gsi/index/ByCustomer\n",
		"without the index attribute: served",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output %q lacks %q", got, want)
		}
	}
	// Running it again reuses the tables.
	out.Reset()
	if err := run(context.Background(), []string{"--endpoint", s.URL, "--table", "Demo"}, &out); err != nil {
		t.Fatal(err)
	}
}

// TestExampleThrottleOff: a server that refuses nothing makes the program
// fail rather than loop forever.
func TestExampleThrottleOff(t *testing.T) {
	s := testserver.New(t, testserver.WithEngineOptions(func(o *emulator.Options) { o.Throttle.Off = true }))
	err := run(context.Background(), []string{"--endpoint", s.URL, "--max-writes", "50"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "none throttled") {
		t.Fatalf("got %v", err)
	}
	err = run(context.Background(), []string{"--endpoint", s.URL, "--max-writes", "50", "--scenario", "gsi"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "none throttled") {
		t.Fatalf("gsi scenario: got %v", err)
	}
	if err := run(context.Background(), []string{"--scenario", "nope"}, &bytes.Buffer{}); err == nil {
		t.Fatal("--scenario nope accepted")
	}
}
