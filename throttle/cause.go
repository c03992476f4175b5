package throttle

// Direction is the kind of capacity a request consumes.
type Direction uint8

const (
	// Read capacity (RCU or read request units).
	Read Direction = iota
	// Write capacity (WCU or write request units).
	Write
)

func (d Direction) String() string {
	if d == Write {
		return "Write"
	}
	return "Read"
}

// Billing is a table's billing mode.
type Billing uint8

const (
	// BillingUnknown is the zero value: a refusal by the account bucket
	// before the table was resolved knows no billing mode.
	BillingUnknown Billing = iota
	// Provisioned is BillingMode PROVISIONED.
	Provisioned
	// OnDemand is BillingMode PAY_PER_REQUEST.
	OnDemand
)

func (b Billing) String() string {
	switch b {
	case Provisioned:
		return "PROVISIONED"
	case OnDemand:
		return "PAY_PER_REQUEST"
	}
	return "UNKNOWN"
}

// Bucket names which bucket refused a request.
type Bucket uint8

const (
	// BucketNone is the zero value: nothing refused.
	BucketNone Bucket = iota
	// BucketTable is the table's own bucket for one direction.
	BucketTable
	// BucketPartition is the bucket of one partition key value.
	BucketPartition
	// BucketAccount is the account's aggregate in one Region.
	BucketAccount
)

func (b Bucket) String() string {
	switch b {
	case BucketTable:
		return "table"
	case BucketPartition:
		return "partition"
	case BucketAccount:
		return "account"
	}
	return "none"
}

// Cause says why a request was refused: which bucket, in which direction,
// for a table of which billing mode, and for an on-demand table's own bucket
// whether its limit was the OnDemandThroughput cap or the default ceiling.
// A refusal on behalf of a global secondary index (a read of the index, or
// the index's share of a base-table write) names the index; its buckets are
// then the index's own, except that BucketTable uncapped on an OnDemand
// table may also be the table's per-table quota, which the table and its
// indexes share.
type Cause struct {
	Bucket    Bucket
	Direction Direction
	// Billing is the table's mode; BillingUnknown when the account bucket
	// refused before the table was resolved.
	Billing Billing
	// Capped is set only for BucketTable on an OnDemand table or index whose
	// limit in Direction is its OnDemandThroughput cap (not the default
	// ceiling).
	Capped bool
	// Index is the name of the global secondary index refused, "" for the
	// table itself.
	Index string
}

func (c Cause) String() string {
	s := c.Bucket.String() + " " + c.Direction.String() + " " + c.Billing.String()
	if c.Capped {
		s += " capped"
	}
	if c.Index != "" {
		s += " index " + c.Index
	}
	return s
}
