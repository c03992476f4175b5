package main

import (
	"flag"
	"fmt"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/throttle"
)

// throttleConfig is the throttle manager's part of `extenddb serve`.
type throttleConfig struct {
	mode string // on or off
	// Account aggregates per Region and the default per-table ceiling, as
	// DescribeLimits reports them.
	accountRead, accountWrite int64
	tableRead, tableWrite     int64
	// Per partition key value.
	partitionRead, partitionWrite float64
	// Seconds of rate a new table's buckets start with.
	initialBurst float64
}

func newThrottleConfig() throttleConfig {
	return throttleConfig{
		mode:           "on",
		accountRead:    throttle.DefaultAccountReadUnits,
		accountWrite:   throttle.DefaultAccountWriteUnits,
		tableRead:      throttle.DefaultTableReadUnits,
		tableWrite:     throttle.DefaultTableWriteUnits,
		partitionRead:  throttle.DefaultPartitionReadUnits,
		partitionWrite: throttle.DefaultPartitionWriteUnits,
		initialBurst:   throttle.DefaultInitialSeconds,
	}
}

func (c *throttleConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&c.mode, "throttle", c.mode, "`MODE` of the throttle manager: on (refuse what DynamoDB would refuse) or off (capacity is still computed and reported, nothing is refused)")
	fs.Int64Var(&c.accountRead, "account-read-units", c.accountRead, "`UNITS` per second of the read aggregate of each account in each Region (DescribeLimits AccountMaxReadCapacityUnits)")
	fs.Int64Var(&c.accountWrite, "account-write-units", c.accountWrite, "`UNITS` per second of the write aggregate of each account in each Region (DescribeLimits AccountMaxWriteCapacityUnits)")
	fs.Int64Var(&c.tableRead, "table-read-units", c.tableRead, "`UNITS` per second an on-demand table without a read cap may use (DescribeLimits TableMaxReadCapacityUnits)")
	fs.Int64Var(&c.tableWrite, "table-write-units", c.tableWrite, "`UNITS` per second an on-demand table without a write cap may use (DescribeLimits TableMaxWriteCapacityUnits)")
	fs.Float64Var(&c.partitionRead, "partition-read-units", c.partitionRead, "`UNITS` per second one partition key value may read")
	fs.Float64Var(&c.partitionWrite, "partition-write-units", c.partitionWrite, "`UNITS` per second one partition key value may write")
	fs.Float64Var(&c.initialBurst, "throttle-initial-burst", c.initialBurst, "`SECONDS` of its rate a new table's buckets start with, from 1 to 300 (raise it for tests that burst on a freshly created table)")
}

func (c *throttleConfig) validate() error {
	if c.mode != "on" && c.mode != "off" {
		return fmt.Errorf("--throttle %q: must be on or off", c.mode)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"account-read-units", float64(c.accountRead)},
		{"account-write-units", float64(c.accountWrite)},
		{"table-read-units", float64(c.tableRead)},
		{"table-write-units", float64(c.tableWrite)},
		{"partition-read-units", c.partitionRead},
		{"partition-write-units", c.partitionWrite},
	} {
		// NaN fails this comparison too.
		if !(f.v >= 1) {
			return fmt.Errorf("--%s %v: must be at least 1", f.name, f.v)
		}
	}
	if !(c.initialBurst >= 1 && c.initialBurst <= throttle.DefaultBurstSeconds) {
		return fmt.Errorf("--throttle-initial-burst %v: must be from 1 to %d seconds", c.initialBurst, throttle.DefaultBurstSeconds)
	}
	return nil
}

// apply sets the engine options c configures.
func (c *throttleConfig) apply(o *emulator.Options) {
	o.Throttle = emulator.ThrottleOptions{
		Off:                 c.mode == "off",
		PartitionReadUnits:  c.partitionRead,
		PartitionWriteUnits: c.partitionWrite,
		InitialBurstSeconds: c.initialBurst,
	}
	o.Limits = api.DescribeLimitsOutput{
		AccountMaxReadCapacityUnits:  c.accountRead,
		AccountMaxWriteCapacityUnits: c.accountWrite,
		TableMaxReadCapacityUnits:    c.tableRead,
		TableMaxWriteCapacityUnits:   c.tableWrite,
	}
}
