package emulator

// Kinesis Data Streams streaming destinations: Enable, Disable, Update and
// DescribeKinesisStreamingDestination. A table's destinations are stored in
// its metadata (tableMeta.Kinesis), so they survive a restart. A disabled
// destination stays listed as DISABLED and a re-enable reuses its entry, as
// the service does (Terraform waits for DISABLED after a disable).
//
// Statuses move ENABLING → ACTIVE (or ENABLE_FAILED), UPDATING → ACTIVE and
// DISABLING → DISABLED after Options.TransitionDelay, like every other
// transition. Delivery of the change records is kinesis_delivery.go.

import (
	"context"
	"strings"
	"time"
)

const (
	kdsEnabling     = "ENABLING"
	kdsActive       = "ACTIVE"
	kdsUpdating     = "UPDATING"
	kdsDisabling    = "DISABLING"
	kdsDisabled     = "DISABLED"
	kdsEnableFailed = "ENABLE_FAILED"

	precisionMilli = "MILLISECOND"
	precisionMicro = "MICROSECOND"
)

// kinesisDest is one streaming destination of a table. Status is where it
// settles; until Until it shows Pending (ENABLING, UPDATING, DISABLING).
type kinesisDest struct {
	StreamArn string    `json:"arn"`
	Status    string    `json:"status"`
	Pending   string    `json:"pending,omitempty"`
	Until     time.Time `json:"until,omitzero"`
	Precision string    `json:"precision,omitempty"`
	// Desc is DestinationStatusDescription (why enabling failed).
	Desc string `json:"desc,omitempty"`
}

func (d *kinesisDest) status(now time.Time) string {
	if d.Pending != "" && now.Before(d.Until) {
		return d.Pending
	}
	return d.Status
}

// delivers reports whether changes made at now go to the stream: from the
// enable on (DynamoDB captures while ENABLING), until the disable.
func (d *kinesisDest) delivers(now time.Time) bool {
	switch d.status(now) {
	case kdsActive, kdsUpdating:
		return true
	case kdsEnabling:
		return d.Status == kdsActive
	}
	return false
}

func (d *kinesisDest) precision() string {
	if d.Precision == "" {
		return precisionMilli
	}
	return d.Precision
}

// kinesisDestOf returns t's destination for arn, or nil.
func (t *tableMeta) kinesisDestOf(arn string) *kinesisDest {
	for _, d := range t.Kinesis {
		if d.StreamArn == arn {
			return d
		}
	}
	return nil
}

// kinesisShape checks the members common to the four operations, in the
// model's order.
func kinesisShape(v *violations, table, stream *string, streamRequired bool) {
	v.tableRef("tableName", table)
	if stream == nil {
		if streamRequired {
			v.null("streamArn")
		}
		return
	}
	v.length("streamArn", *stream, 37, 1024)
}

func precisionEnum(v *violations, path string, p *string) {
	v.enum(path, p, precisionMilli, precisionMicro)
}

// kinesisTable resolves TableName and looks the table up under e.mu.
func (e *Engine) kinesisTable(ns Namespace, name *string, now time.Time) (*tableMeta, error) {
	if err := checkBareName(*name); err != nil {
		return nil, err
	}
	tns, n, err := resolveName(ns, *name)
	if err != nil {
		return nil, err
	}
	t := e.lookup(tns, n, now)
	if t == nil {
		return nil, TableNotFound(n)
	}
	return t, nil
}

// checkStreamARN requires arn:PARTITION:kinesis:REGION:ACCOUNT:stream/NAME
// in the table's account and Region, as DynamoDB streams only to a Kinesis
// data stream of its own account and Region.
func checkStreamARN(t *tableMeta, arn string) error {
	p := strings.SplitN(arn, ":", 6)
	if len(p) != 6 || p[0] != "arn" || p[2] != "kinesis" || !strings.HasPrefix(p[5], "stream/") || len(p[5]) == len("stream/") || strings.Contains(p[5][len("stream/"):], "/") {
		return Validation("Invalid StreamArn: %s is not a Kinesis data stream ARN", arn)
	}
	if p[1] != t.ns().Partition() || p[3] != t.Region || p[4] != t.Account {
		return Validation("Invalid StreamArn: the Kinesis data stream %s must be in the same account and Region as the table %s", arn, t.ARN())
	}
	return nil
}

// kinesisRules applies the enable rules to t's current destinations.
func kinesisEnableRules(t *tableMeta, arn string, now time.Time) error {
	for _, d := range t.Kinesis {
		s := d.status(now)
		if s == kdsDisabled || s == kdsEnableFailed {
			continue
		}
		if d.StreamArn == arn {
			return Validation("Table is not in a valid state to enable Kinesis Streaming Destination:EnableKinesisStreamingDestination must be DISABLED or ENABLE_FAILED to perform ENABLE operation.")
		}
		return NewError(CodeLimitExceeded, "Table %s already has a Kinesis streaming destination %s in status %s: only one destination per table is allowed", t.Name, d.StreamArn, s)
	}
	return nil
}

// EnableKinesisStreamingDestination starts streaming a table's item changes
// to a Kinesis data stream.
func (e *Engine) EnableKinesisStreamingDestination(ctx context.Context, ns Namespace, in *KinesisStreamingDestinationInput) (*KinesisStreamingDestinationOutput, error) {
	if in == nil {
		in = &KinesisStreamingDestinationInput{}
	}
	var v violations
	kinesisShape(&v, in.TableName, in.StreamArn, true)
	var prec *string
	if c := in.EnableKinesisStreamingConfiguration; c != nil {
		prec = c.ApproximateCreationDateTimePrecision
		precisionEnum(&v, "enableKinesisStreamingConfiguration.approximateCreationDateTimePrecision", prec)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	arn := *in.StreamArn
	now := e.now()
	e.rlockCatalog()
	t, err := e.kinesisTable(ns, in.TableName, now)
	if err == nil {
		err = e.kinesisEnableChecks(t, arn, now)
	}
	e.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	// Ask Kinesis outside e.mu: it is a network call.
	status, desc := kdsActive, ""
	if sink := e.opts.Kinesis; sink != nil {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		ok, err := sink.StreamExists(cctx, arn)
		cancel()
		switch {
		case err != nil:
			status, desc = kdsEnableFailed, "Kinesis Data Streams could not be reached to check the stream: "+err.Error()
		case !ok:
			status, desc = kdsEnableFailed, "User does not have a permission to use kinesis stream"
		}
	}
	e.lockCatalog()
	defer e.unlockCatalog()
	now = e.now()
	if t, err = e.kinesisTable(ns, in.TableName, now); err != nil {
		return nil, err
	}
	if err := e.kinesisEnableChecks(t, arn, now); err != nil {
		return nil, err
	}
	nt := t.clone()
	d := nt.kinesisDestOf(arn)
	if d == nil {
		d = &kinesisDest{StreamArn: arn}
		nt.Kinesis = append(nt.Kinesis, d)
	}
	d.Status, d.Pending, d.Until, d.Desc = status, kdsEnabling, now.Add(e.opts.TransitionDelay), desc
	d.Precision = ""
	if prec != nil {
		d.Precision = *prec
	}
	if err := e.saveTable(nt); err != nil {
		return nil, internalError(err)
	}
	cfg := in.EnableKinesisStreamingConfiguration
	if cfg == nil {
		cfg = &EnableKinesisStreamingConfiguration{}
	}
	return &KinesisStreamingDestinationOutput{TableName: nt.Name, StreamArn: arn, DestinationStatus: kdsEnabling, EnableKinesisStreamingConfiguration: cfg}, nil
}

func (e *Engine) kinesisEnableChecks(t *tableMeta, arn string, now time.Time) error {
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		return inUse(t, s)
	}
	if err := checkStreamARN(t, arn); err != nil {
		return err
	}
	return kinesisEnableRules(t, arn, now)
}

// DisableKinesisStreamingDestination stops streaming to a destination; it
// stays listed as DISABLED.
func (e *Engine) DisableKinesisStreamingDestination(ctx context.Context, ns Namespace, in *KinesisStreamingDestinationInput) (*KinesisStreamingDestinationOutput, error) {
	if in == nil {
		in = &KinesisStreamingDestinationInput{}
	}
	var v violations
	kinesisShape(&v, in.TableName, in.StreamArn, true)
	if c := in.EnableKinesisStreamingConfiguration; c != nil {
		precisionEnum(&v, "enableKinesisStreamingConfiguration.approximateCreationDateTimePrecision", c.ApproximateCreationDateTimePrecision)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	arn := *in.StreamArn
	e.lockCatalog()
	defer e.unlockCatalog()
	now := e.now()
	t, err := e.kinesisTable(ns, in.TableName, now)
	if err != nil {
		return nil, err
	}
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		return nil, inUse(t, s)
	}
	d := t.kinesisDestOf(arn)
	if d == nil {
		return nil, Validation("Table is not in a valid state to disable Kinesis Streaming Destination: No streaming destination with streamArn: %s found for table with tableName: %s", arn, t.Name)
	}
	if d.status(now) != kdsActive {
		return nil, Validation("Table is not in a valid state to disable Kinesis Streaming Destination:DisableKinesisStreamingDestination must be ACTIVE to perform DISABLE operation.")
	}
	nt := t.clone()
	nd := nt.kinesisDestOf(arn)
	nd.Status, nd.Pending, nd.Until, nd.Desc = kdsDisabled, kdsDisabling, now.Add(e.opts.TransitionDelay), ""
	if err := e.saveTable(nt); err != nil {
		return nil, internalError(err)
	}
	cfg := in.EnableKinesisStreamingConfiguration
	if cfg == nil {
		cfg = &EnableKinesisStreamingConfiguration{}
	}
	return &KinesisStreamingDestinationOutput{TableName: nt.Name, StreamArn: arn, DestinationStatus: kdsDisabling, EnableKinesisStreamingConfiguration: cfg}, nil
}

// UpdateKinesisStreamingDestination changes the timestamp precision of an
// active destination.
func (e *Engine) UpdateKinesisStreamingDestination(ctx context.Context, ns Namespace, in *UpdateKinesisStreamingDestinationInput) (*UpdateKinesisStreamingDestinationOutput, error) {
	if in == nil {
		in = &UpdateKinesisStreamingDestinationInput{}
	}
	var v violations
	kinesisShape(&v, in.TableName, in.StreamArn, true)
	cfg := in.UpdateKinesisStreamingConfiguration
	if cfg != nil {
		precisionEnum(&v, "updateKinesisStreamingConfiguration.approximateCreationDateTimePrecision", cfg.ApproximateCreationDateTimePrecision)
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	if cfg == nil || cfg.ApproximateCreationDateTimePrecision == nil {
		return nil, Validation("Streaming destination cannot be updated with given parameters: UpdateKinesisStreamingConfiguration cannot be null or contain only null values")
	}
	arn, prec := *in.StreamArn, *cfg.ApproximateCreationDateTimePrecision
	e.lockCatalog()
	defer e.unlockCatalog()
	now := e.now()
	t, err := e.kinesisTable(ns, in.TableName, now)
	if err != nil {
		return nil, err
	}
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		return nil, inUse(t, s)
	}
	d := t.kinesisDestOf(arn)
	if d == nil {
		return nil, Validation("Table is not in a valid state to enable Kinesis Streaming Destination: No streaming destination with streamArn: %s found for table with tableName: %s", arn, t.Name)
	}
	if d.status(now) != kdsActive {
		return nil, Validation("Table is not in a valid state to update Kinesis Streaming Destination:UpdateKinesisStreamingDestination must be ACTIVE to perform UPDATE operation.")
	}
	if d.precision() == prec {
		return nil, Validation("Invalid Request: Precision is already set to the desired value of %s for tableId: %s, kdsArn: %s", prec, t.ID.UUID(), arn)
	}
	nt := t.clone()
	nd := nt.kinesisDestOf(arn)
	nd.Precision, nd.Status, nd.Pending, nd.Until = prec, kdsActive, kdsUpdating, now.Add(e.opts.TransitionDelay)
	if err := e.saveTable(nt); err != nil {
		return nil, internalError(err)
	}
	return &UpdateKinesisStreamingDestinationOutput{TableName: nt.Name, StreamArn: arn, DestinationStatus: kdsUpdating, UpdateKinesisStreamingConfiguration: cfg}, nil
}

// DescribeKinesisStreamingDestination lists a table's destinations.
func (e *Engine) DescribeKinesisStreamingDestination(ctx context.Context, ns Namespace, in *DescribeKinesisStreamingDestinationInput) (*DescribeKinesisStreamingDestinationOutput, error) {
	if in == nil {
		in = &DescribeKinesisStreamingDestinationInput{}
	}
	var v violations
	kinesisShape(&v, in.TableName, nil, false)
	if err := v.err(); err != nil {
		return nil, err
	}
	e.rlockCatalog()
	defer e.mu.RUnlock()
	now := e.now()
	t, err := e.kinesisTable(ns, in.TableName, now)
	if err != nil {
		return nil, err
	}
	out := &DescribeKinesisStreamingDestinationOutput{TableName: t.Name, KinesisDataStreamDestinations: []KinesisDataStreamDestination{}}
	for _, d := range t.Kinesis {
		out.KinesisDataStreamDestinations = append(out.KinesisDataStreamDestinations, KinesisDataStreamDestination{
			StreamArn: d.StreamArn, DestinationStatus: d.status(now),
			ApproximateCreationDateTimePrecision: d.precision(),
		})
		if d.status(now) == kdsEnableFailed {
			out.KinesisDataStreamDestinations[len(out.KinesisDataStreamDestinations)-1].DestinationStatusDescription = d.Desc
		}
	}
	return out, nil
}
