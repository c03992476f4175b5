package kinesis

// Streaming destinations: Enable, Disable, Update and
// DescribeKinesisStreamingDestination. A table's destinations are stored
// in its metadata, so they survive a restart. A disabled destination stays
// listed as DISABLED and a re-enable reuses its entry, as the service does
// (Terraform waits for DISABLED after a disable).
//
// Statuses move ENABLING → ACTIVE (or ENABLE_FAILED), UPDATING → ACTIVE and
// DISABLING → DISABLED after Options.TransitionDelay, like every other
// transition. Delivery of the change records is delivery.go.

import (
	"context"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

const (
	statusEnabling     = "ENABLING"
	statusActive       = "ACTIVE"
	statusUpdating     = "UPDATING"
	statusDisabling    = "DISABLING"
	statusDisabled     = "DISABLED"
	statusEnableFailed = "ENABLE_FAILED"

	// PrecisionMilli and PrecisionMicro are the values of
	// ApproximateCreationDateTimePrecision.
	PrecisionMilli = "MILLISECOND"
	PrecisionMicro = "MICROSECOND"
)

// Destination is one streaming destination of a table. Status is where
// it settles; until Until it shows Pending (ENABLING, UPDATING,
// DISABLING).
type Destination struct {
	StreamArn string    `json:"arn"`
	Status    string    `json:"status"`
	Pending   string    `json:"pending,omitempty"`
	Until     time.Time `json:"until,omitzero"`
	Precision string    `json:"precision,omitempty"`
	// Desc is DestinationStatusDescription (why enabling failed).
	Desc string `json:"desc,omitempty"`
}

// Destinations is a table's streaming destinations, stored with its
// metadata.
type Destinations []*Destination

func (d *Destination) status(now time.Time) string {
	if d.Pending != "" && now.Before(d.Until) {
		return d.Pending
	}
	return d.Status
}

// delivers reports whether changes made at now go to the stream: from the
// enable on (DynamoDB captures while ENABLING), until the disable.
func (d *Destination) delivers(now time.Time) bool {
	switch d.status(now) {
	case statusActive, statusUpdating:
		return true
	case statusEnabling:
		return d.Status == statusActive
	}
	return false
}

func (d *Destination) precision() string {
	if d.Precision == "" {
		return PrecisionMilli
	}
	return d.Precision
}

// of returns the destination for arn, or nil.
func (ds Destinations) of(arn string) *Destination {
	for _, d := range ds {
		if d.StreamArn == arn {
			return d
		}
	}
	return nil
}

// Table is what the operations read of a table's metadata, and the
// destinations they change.
type Table struct {
	ID              [16]byte
	Name, ARN       string
	Account, Region string
	Partition       string
	// InUse is the ResourceInUseException of a table being created or
	// deleted, nil otherwise.
	InUse error
	// Destinations are the table's; under Core.Change, those of the copy
	// to be saved.
	Destinations *Destinations
}

// Core is what the streaming destinations use of the engine.
type Core interface {
	// Now is the engine's clock; TransitionDelay is how long a
	// destination stays ENABLING, UPDATING or DISABLING.
	Now() time.Time
	TransitionDelay() time.Duration
	// View runs fn on the table that name (a name or an ARN) denotes in
	// ns, under the catalog's read lock, with the time taken under it.
	// A name that does not resolve or names no live table is answered as
	// every operation does.
	View(ns api.Namespace, name string, fn func(t *Table, now time.Time) error) error
	// Change is View under the catalog's write lock, on a copy of the
	// table that it saves when fn returns nil.
	Change(ns api.Namespace, name string, fn func(t *Table, now time.Time) error) error
	// Queue is the delivery queue's store and key range, the sink (nil
	// when none is configured: then destinations are bookkeeping only),
	// the log and the engine's answer to an unexpected store failure
	// (delivery.go).
	Queue
}

// checkStreamARN requires arn:PARTITION:kinesis:REGION:ACCOUNT:stream/NAME
// in the table's account and Region, as DynamoDB streams only to a Kinesis
// data stream of its own account and Region.
func checkStreamARN(t *Table, arn string) error {
	p := strings.SplitN(arn, ":", 6)
	if len(p) != 6 || p[0] != "arn" || p[2] != "kinesis" || !strings.HasPrefix(p[5], "stream/") || len(p[5]) == len("stream/") || strings.Contains(p[5][len("stream/"):], "/") {
		return api.Validation("Invalid StreamArn: %s is not a Kinesis data stream ARN", arn)
	}
	if p[1] != t.Partition || p[3] != t.Region || p[4] != t.Account {
		return api.Validation("Invalid StreamArn: the Kinesis data stream %s must be in the same account and Region as the table %s", arn, t.ARN)
	}
	return nil
}

// enableRules applies the enable rules to t's current destinations.
func enableRules(t *Table, arn string, now time.Time) error {
	for _, d := range *t.Destinations {
		s := d.status(now)
		if s == statusDisabled || s == statusEnableFailed {
			continue
		}
		if d.StreamArn == arn {
			return api.Validation("Table is not in a valid state to enable Kinesis Streaming Destination:EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform ENABLE operation.")
		}
		return api.NewError(api.CodeLimitExceeded, "Table %s already has a Kinesis streaming destination %s in status %s: only one destination per table is allowed", t.Name, d.StreamArn, s)
	}
	return nil
}

func enableChecks(t *Table, arn string, now time.Time) error {
	if t.InUse != nil {
		return t.InUse
	}
	if err := checkStreamARN(t, arn); err != nil {
		return err
	}
	return enableRules(t, arn, now)
}

// Enable starts streaming a table's item changes to a Kinesis data
// stream; the request has passed the shape checks.
func Enable(ctx context.Context, c Core, ns api.Namespace, in *api.KinesisStreamingDestinationInput) (*api.KinesisStreamingDestinationOutput, error) {
	arn := *in.StreamArn
	err := c.View(ns, *in.TableName, func(t *Table, now time.Time) error { return enableChecks(t, arn, now) })
	if err != nil {
		return nil, err
	}
	// Ask Kinesis outside the catalog's lock: it is a network call.
	status, desc := statusActive, ""
	if sink := c.Sink(); sink != nil {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		ok, err := sink.StreamExists(cctx, arn)
		cancel()
		switch {
		case err != nil:
			status, desc = statusEnableFailed, "Kinesis Data Streams could not be reached to check the stream: "+err.Error()
		case !ok:
			status, desc = statusEnableFailed, "User does not have a permission to use kinesis stream"
		}
	}
	var name string
	err = c.Change(ns, *in.TableName, func(t *Table, now time.Time) error {
		if err := enableChecks(t, arn, now); err != nil {
			return err
		}
		d := t.Destinations.of(arn)
		if d == nil {
			d = &Destination{StreamArn: arn}
			*t.Destinations = append(*t.Destinations, d)
		}
		d.Status, d.Pending, d.Until, d.Desc = status, statusEnabling, now.Add(c.TransitionDelay()), desc
		d.Precision = ""
		if p := in.EnableKinesisStreamingConfiguration; p != nil && p.ApproximateCreationDateTimePrecision != nil {
			d.Precision = *p.ApproximateCreationDateTimePrecision
		}
		name = t.Name
		return nil
	})
	if err != nil {
		return nil, err
	}
	cfg := in.EnableKinesisStreamingConfiguration
	if cfg == nil {
		cfg = &api.EnableKinesisStreamingConfiguration{}
	}
	return &api.KinesisStreamingDestinationOutput{TableName: name, StreamArn: arn, DestinationStatus: statusEnabling, EnableKinesisStreamingConfiguration: cfg}, nil
}

// Disable stops streaming to a destination; it stays listed as DISABLED.
// The request has passed the shape checks.
func Disable(c Core, ns api.Namespace, in *api.KinesisStreamingDestinationInput) (*api.KinesisStreamingDestinationOutput, error) {
	arn := *in.StreamArn
	var name string
	err := c.Change(ns, *in.TableName, func(t *Table, now time.Time) error {
		if t.InUse != nil {
			return t.InUse
		}
		d := t.Destinations.of(arn)
		if d == nil {
			return api.Validation("Table is not in a valid state to disable Kinesis Streaming Destination: No streaming destination with streamArn: %s found for table with tableName: %s", arn, t.Name)
		}
		if d.status(now) != statusActive {
			return api.Validation("Table is not in a valid state to disable Kinesis Streaming Destination:DisableKinesisStreamingDestination must be ACTIVE to perform DISABLE operation.")
		}
		d.Status, d.Pending, d.Until, d.Desc = statusDisabled, statusDisabling, now.Add(c.TransitionDelay()), ""
		name = t.Name
		return nil
	})
	if err != nil {
		return nil, err
	}
	cfg := in.EnableKinesisStreamingConfiguration
	if cfg == nil {
		cfg = &api.EnableKinesisStreamingConfiguration{}
	}
	return &api.KinesisStreamingDestinationOutput{TableName: name, StreamArn: arn, DestinationStatus: statusDisabling, EnableKinesisStreamingConfiguration: cfg}, nil
}

// Update changes the timestamp precision of an active destination. The
// request has passed the shape checks.
func Update(c Core, ns api.Namespace, in *api.UpdateKinesisStreamingDestinationInput) (*api.UpdateKinesisStreamingDestinationOutput, error) {
	cfg := in.UpdateKinesisStreamingConfiguration
	if cfg == nil || cfg.ApproximateCreationDateTimePrecision == nil {
		return nil, api.Validation("Streaming destination cannot be updated with given parameters: UpdateKinesisStreamingConfiguration cannot be null or contain only null values")
	}
	arn, prec := *in.StreamArn, *cfg.ApproximateCreationDateTimePrecision
	var name string
	err := c.Change(ns, *in.TableName, func(t *Table, now time.Time) error {
		if t.InUse != nil {
			return t.InUse
		}
		d := t.Destinations.of(arn)
		if d == nil {
			return api.Validation("Table is not in a valid state to enable Kinesis Streaming Destination: No streaming destination with streamArn: %s found for table with tableName: %s", arn, t.Name)
		}
		if d.status(now) != statusActive {
			return api.Validation("Table is not in a valid state to update Kinesis Streaming Destination:UpdateKinesisStreamingDestination must be ACTIVE to perform UPDATE operation.")
		}
		if d.precision() == prec {
			return api.Validation("Invalid Request: Precision is already set to the desired value of %s for tableId: %s, kdsArn: %s", prec, api.UUIDString(t.ID), arn)
		}
		d.Precision, d.Status, d.Pending, d.Until = prec, statusActive, statusUpdating, now.Add(c.TransitionDelay())
		name = t.Name
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &api.UpdateKinesisStreamingDestinationOutput{TableName: name, StreamArn: arn, DestinationStatus: statusUpdating, UpdateKinesisStreamingConfiguration: cfg}, nil
}

// Describe lists a table's destinations. The request has passed the shape
// checks.
func Describe(c Core, ns api.Namespace, in *api.DescribeKinesisStreamingDestinationInput) (*api.DescribeKinesisStreamingDestinationOutput, error) {
	var out *api.DescribeKinesisStreamingDestinationOutput
	err := c.View(ns, *in.TableName, func(t *Table, now time.Time) error {
		out = &api.DescribeKinesisStreamingDestinationOutput{TableName: t.Name, KinesisDataStreamDestinations: []api.KinesisDataStreamDestination{}}
		for _, d := range *t.Destinations {
			out.KinesisDataStreamDestinations = append(out.KinesisDataStreamDestinations, api.KinesisDataStreamDestination{
				StreamArn: d.StreamArn, DestinationStatus: d.status(now),
				ApproximateCreationDateTimePrecision: d.precision(),
			})
			if d.status(now) == statusEnableFailed {
				out.KinesisDataStreamDestinations[len(out.KinesisDataStreamDestinations)-1].DestinationStatusDescription = d.Desc
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
