package throttle

import (
	"errors"
	"fmt"
	"math"
)

// Defaults of Config. The per-table and per-account figures are the service
// quotas documented for a fresh account (ServiceQuotas.html); the partition
// figures are the per-partition maxima (burst-adaptive-capacity.html).
const (
	DefaultBurstSeconds        = 300
	DefaultInitialSeconds      = 1
	DefaultPartitionReadUnits  = 3000
	DefaultPartitionWriteUnits = 1000
	DefaultTableReadUnits      = 40000
	DefaultTableWriteUnits     = 40000
	DefaultAccountReadUnits    = 80000
	DefaultAccountWriteUnits   = 80000
)

// Config configures a Manager. A zero field takes its documented default.
// Units are capacity units (provisioned) or request units (on-demand) per
// second.
type Config struct {
	// Off turns refusals off: every Admit succeeds. Charge still debits, so
	// balances stay what they would have been.
	Off bool
	// BurstSeconds is how many seconds of unused capacity a bucket keeps.
	// Default 300.
	BurstSeconds float64
	// InitialSeconds is how many seconds of its rate a new table's buckets
	// (the table's and its partition key values') start with, from 1 to
	// BurstSeconds. Default 1: the service's starting balance is not
	// documented (docs/throttling.md).
	InitialSeconds float64
	// PartitionReadUnits and PartitionWriteUnits are the rate of each
	// partition key value's bucket, in both billing modes. Defaults 3,000
	// and 1,000.
	PartitionReadUnits  float64
	PartitionWriteUnits float64
	// TableReadUnits and TableWriteUnits are the default per-table ceiling
	// of an on-demand table without an OnDemandThroughput cap in that
	// direction. Defaults 40,000 and 40,000.
	TableReadUnits  float64
	TableWriteUnits float64
	// AccountReadUnits and AccountWriteUnits are the aggregate of every table
	// of one account in one Region. Defaults 80,000 and 80,000.
	AccountReadUnits  float64
	AccountWriteUnits float64
}

// ErrInvalidConfig is returned by New for a negative or non-finite field.
var ErrInvalidConfig = errors.New("throttle: invalid config")

func (c Config) withDefaults() (Config, error) {
	fields := []struct {
		name string
		v    *float64
		def  float64
	}{
		{"BurstSeconds", &c.BurstSeconds, DefaultBurstSeconds},
		{"InitialSeconds", &c.InitialSeconds, DefaultInitialSeconds},
		{"PartitionReadUnits", &c.PartitionReadUnits, DefaultPartitionReadUnits},
		{"PartitionWriteUnits", &c.PartitionWriteUnits, DefaultPartitionWriteUnits},
		{"TableReadUnits", &c.TableReadUnits, DefaultTableReadUnits},
		{"TableWriteUnits", &c.TableWriteUnits, DefaultTableWriteUnits},
		{"AccountReadUnits", &c.AccountReadUnits, DefaultAccountReadUnits},
		{"AccountWriteUnits", &c.AccountWriteUnits, DefaultAccountWriteUnits},
	}
	for _, f := range fields {
		switch {
		case *f.v < 0 || math.IsNaN(*f.v) || math.IsInf(*f.v, 0):
			return c, fmt.Errorf("%w: %s = %v", ErrInvalidConfig, f.name, *f.v)
		case *f.v == 0:
			*f.v = f.def
		}
	}
	// A bucket holds at least the one second an account's starts with.
	if c.BurstSeconds < 1 {
		return c, fmt.Errorf("%w: BurstSeconds = %v, must be at least 1", ErrInvalidConfig, c.BurstSeconds)
	}
	// A bucket never holds more than its ceiling, at its start either.
	if c.InitialSeconds < 1 || c.InitialSeconds > c.BurstSeconds {
		return c, fmt.Errorf("%w: InitialSeconds = %v, must be from 1 to BurstSeconds (%v)", ErrInvalidConfig, c.InitialSeconds, c.BurstSeconds)
	}
	return c, nil
}

func (c *Config) partitionRate(d Direction) float64 {
	if d == Write {
		return c.PartitionWriteUnits
	}
	return c.PartitionReadUnits
}

func (c *Config) tableRate(d Direction) float64 {
	if d == Write {
		return c.TableWriteUnits
	}
	return c.TableReadUnits
}

func (c *Config) accountRate(d Direction) float64 {
	if d == Write {
		return c.AccountWriteUnits
	}
	return c.AccountReadUnits
}
