package main

import (
	"flag"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
)

func TestThrottleFlags(t *testing.T) {
	cases := []struct {
		args    []string
		wantErr string
		check   func(t *testing.T, o emulator.Options)
	}{
		{nil, "", func(t *testing.T, o emulator.Options) {
			if o.Throttle.Off || o.Limits.AccountMaxReadCapacityUnits != 80000 || o.Limits.TableMaxWriteCapacityUnits != 40000 ||
				o.Throttle.PartitionReadUnits != 3000 || o.Throttle.PartitionWriteUnits != 1000 || o.Throttle.InitialBurstSeconds != 1 {
				t.Errorf("defaults: %+v %+v", o.Throttle, o.Limits)
			}
		}},
		{[]string{"--throttle=off"}, "", func(t *testing.T, o emulator.Options) {
			if !o.Throttle.Off {
				t.Error("--throttle=off did not turn refusals off")
			}
		}},
		{[]string{"--account-read-units=5", "--account-write-units=6", "--table-read-units=7", "--table-write-units=8",
			"--partition-read-units=9", "--partition-write-units=10"}, "", func(t *testing.T, o emulator.Options) {
			want := api.DescribeLimitsOutput{AccountMaxReadCapacityUnits: 5, AccountMaxWriteCapacityUnits: 6, TableMaxReadCapacityUnits: 7, TableMaxWriteCapacityUnits: 8}
			if o.Limits != want || o.Throttle.PartitionReadUnits != 9 || o.Throttle.PartitionWriteUnits != 10 {
				t.Errorf("got %+v %+v", o.Throttle, o.Limits)
			}
		}},
		{[]string{"--throttle-initial-burst=30"}, "", func(t *testing.T, o emulator.Options) {
			if o.Throttle.InitialBurstSeconds != 30 {
				t.Errorf("--throttle-initial-burst=30: InitialBurstSeconds %v", o.Throttle.InitialBurstSeconds)
			}
		}},
		{[]string{"--throttle-initial-burst=300"}, "", func(t *testing.T, o emulator.Options) {
			if o.Throttle.InitialBurstSeconds != 300 {
				t.Errorf("--throttle-initial-burst=300: InitialBurstSeconds %v", o.Throttle.InitialBurstSeconds)
			}
		}},
		{[]string{"--throttle-initial-burst=0"}, "--throttle-initial-burst", nil},
		{[]string{"--throttle-initial-burst=0.5"}, "--throttle-initial-burst", nil},
		{[]string{"--throttle-initial-burst=301"}, "--throttle-initial-burst", nil},
		{[]string{"--throttle-initial-burst=NaN"}, "--throttle-initial-burst", nil},
		{[]string{"--throttle=maybe"}, "--throttle", nil},
		{[]string{"--account-read-units=0"}, "--account-read-units", nil},
		{[]string{"--partition-write-units=0.5"}, "--partition-write-units", nil},
		{[]string{"--partition-read-units=NaN"}, "--partition-read-units", nil},
	}
	for _, c := range cases {
		cfg := newThrottleConfig()
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		cfg.register(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		err := cfg.validate()
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: error %v, want one naming %s", c.args, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		var o emulator.Options
		cfg.apply(&o)
		c.check(t, o)
	}
}
