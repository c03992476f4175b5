package bulkput

import (
	"encoding/hex"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/kv"
)

const (
	// tokenWindow is how long a ClientToken names its operation (API
	// Reference, StartBulkPutItems: ClientToken).
	tokenWindow = 8 * time.Hour
	// listWindow is how far back ListBulkOperations looks (API Reference,
	// ListBulkOperations).
	listWindow = 90 * 24 * time.Hour
)

// Start starts a bulk put into the table in.TableName names; the request
// has passed the model's member constraints. The answer is IN_PROGRESS
// and the job runs in the background.
func (x *Jobs) Start(c Core, ns api.Namespace, in *api.StartBulkPutItemsInput) (*api.StartBulkPutItemsOutput, error) {
	now := c.Now()
	x.mu.Lock()
	defer x.mu.Unlock()
	tier := "STANDARD"
	if in.PerformanceTier != nil {
		tier = *in.PerformanceTier
	}
	m := &opMeta{Account: ns.Account, Region: ns.Region, Status: statusInProgress, Start: now,
		Input: *in.InputS3Configuration, Output: *in.OutputS3Configuration, MaxWRU: in.MaxWriteRequestUnits, Tier: tier}
	if m.Input.InputCompressionType == nil {
		m.Input.InputCompressionType = ref("NONE")
	}
	if in.ClientToken != nil {
		m.ClientToken = *in.ClientToken
		all, err := scanOps(c.Store(), recordPrefix(ns))
		if err != nil {
			return nil, c.InternalError(err)
		}
		for _, old := range all {
			if old.ClientToken != m.ClientToken || now.Sub(old.Start) >= tokenWindow {
				continue
			}
			if !sameRequest(old, m, *in.TableName) {
				return nil, api.NewError(api.CodeIdempotentParameterMismatch,
					"The request uses the same client token as a previous, but non-identical request.")
			}
			return &api.StartBulkPutItemsOutput{BulkOperationDescription: describe(old)}, nil
		}
	}
	t, err := c.Target(ns, *in.TableName)
	if err != nil {
		return nil, err
	}
	m.TableName, m.TableID = t.Name(), t.ID()
	if m.ID, err = c.NewID(now); err != nil {
		return nil, c.InternalError(err)
	}
	b := c.Store().NewBatch()
	if err := putOp(b.Set, m); err != nil {
		_ = b.Close()
		return nil, c.InternalError(err)
	}
	if err := c.Commit(b); err != nil {
		return nil, c.InternalError(err)
	}
	x.started++
	// Described before its job starts changing m.
	d := describe(m)
	x.startLocked(c, m)
	return &api.StartBulkPutItemsOutput{BulkOperationDescription: d}, nil
}

// sameRequest reports whether a repeat of a ClientToken asks for what old
// did (the table by name or ARN, the input and output, the rate, the tier).
func sameRequest(old, m *opMeta, table string) bool {
	if table != old.TableName && table != old.ns().TableARN(old.TableName) {
		return false
	}
	if (old.MaxWRU == nil) != (m.MaxWRU == nil) || old.MaxWRU != nil && *old.MaxWRU != *m.MaxWRU {
		return false
	}
	return old.Tier == m.Tier && reflect.DeepEqual(old.Input, m.Input) && reflect.DeepEqual(old.Output, m.Output)
}

func describe(m *opMeta) *api.BulkOperationDescription {
	in, out := m.Input, m.Output
	d := &api.BulkOperationDescription{BulkOperationArn: ref(m.ARN()), BulkOperationStatus: m.Status,
		TableDetails:         []api.BulkOperationTableDetail{{TableName: ref(m.TableName), TableId: ref(api.UUIDString(m.TableID))}},
		InputS3Configuration: &in, OutputS3Configuration: &out, StartTime: epochRef(m.Start),
		ProcessedItemCount: m.Processed, FailedItemCount: m.Failed, ProcessedInputBytes: ref(m.ReadBytes),
		TotalInputBytes: m.TotalBytes, MaxWriteRequestUnits: m.MaxWRU, PerformanceTier: m.Tier}
	if m.ClientToken != "" {
		d.ClientToken = ref(m.ClientToken)
	}
	if m.terminal() {
		d.EndTime = epochRef(m.End)
	}
	if m.FailureCode != "" {
		d.FailureCode, d.FailureMessage = ref(m.FailureCode), ref(m.FailureMsg)
	}
	u := api.BulkOperationUsage{TableName: ref(m.TableName), Table: &api.BulkOperationBytes{BulkPutBytes: ref(m.TableBytes)}}
	total := m.TableBytes
	if len(m.GSIBytes) > 0 {
		u.GlobalSecondaryIndexes = map[string]api.BulkOperationBytes{}
		for k, v := range m.GSIBytes {
			u.GlobalSecondaryIndexes[k] = api.BulkOperationBytes{BulkPutBytes: ref(v)}
			total += v
		}
	}
	if len(m.LSIBytes) > 0 {
		u.LocalSecondaryIndexes = map[string]api.BulkOperationBytes{}
		for k, v := range m.LSIBytes {
			u.LocalSecondaryIndexes[k] = api.BulkOperationBytes{BulkPutBytes: ref(v)}
			total += v
		}
	}
	// BulkPutBytes leaves the vector bytes out (API Reference,
	// BulkOperationUsage).
	if len(m.VecBytes) > 0 {
		u.VectorIndexes = map[string]api.BulkOperationVectorBytes{}
		for k, v := range m.VecBytes {
			u.VectorIndexes[k] = api.BulkOperationVectorBytes{BulkPutVectorBytes: ref(v)}
		}
	}
	u.BulkPutBytes = ref(total)
	d.BulkOperationUsage = []api.BulkOperationUsage{u}
	return d
}

// parseARN splits arn:P:dynamodb:REGION:ACCOUNT:table/NAME/bulk-operation/ID.
func parseARN(s string) (ns api.Namespace, partition, id string, ok bool) {
	f := strings.SplitN(s, ":", 6)
	if len(f) != 6 || f[0] != "arn" || f[2] != "dynamodb" || strings.IndexByte(s, 0) >= 0 {
		return ns, "", "", false
	}
	parts := strings.Split(f[5], "/")
	if len(parts) != 4 || parts[0] != "table" || parts[1] == "" || parts[2] != "bulk-operation" || parts[3] == "" {
		return ns, "", "", false
	}
	return api.Namespace{Account: f[4], Region: f[3]}, f[1], parts[3], true
}

// get reads operation arn of ns: ValidationException for a malformed ARN,
// ResourceNotFoundException for another namespace's or an unknown one.
func get(c Core, ns api.Namespace, arn string) (*opMeta, error) {
	ans, part, id, ok := parseARN(arn)
	if !ok {
		return nil, api.Validation("Invalid BulkOperationArn: %s", arn)
	}
	notFound := api.ResourceNotFoundError("Bulk operation not found: %s", arn)
	if ans != ns || part != ns.Partition() {
		return nil, notFound
	}
	m, err := getOp(c.Store(), opKey(ns, id))
	if err != nil {
		return nil, c.InternalError(err)
	}
	if m == nil || m.ARN() != arn {
		return nil, notFound
	}
	return m, nil
}

// Describe reports operation arn.
func (x *Jobs) Describe(c Core, ns api.Namespace, arn string) (*api.DescribeBulkOperationOutput, error) {
	m, err := get(c, ns, arn)
	if err != nil {
		return nil, err
	}
	return &api.DescribeBulkOperationOutput{BulkOperationDescription: describe(m)}, nil
}

// List lists the namespace's operations of the last 90 days, newest
// first, after the operation id after ("" for the first page).
func (x *Jobs) List(c Core, ns api.Namespace, limit int, after string) (*api.ListBulkOperationsOutput, error) {
	all, err := scanOps(c.Store(), recordPrefix(ns))
	if err != nil {
		return nil, c.InternalError(err)
	}
	now := c.Now()
	var ms []*opMeta
	for _, m := range all {
		if now.Sub(m.Start) < listWindow && (after == "" || m.ID < after) {
			ms = append(ms, m)
		}
	}
	// Ids start with the start time in epoch milliseconds.
	sort.Slice(ms, func(i, j int) bool { return ms[i].ID > ms[j].ID })
	out := &api.ListBulkOperationsOutput{BulkOperationsSummaryList: []api.BulkOperationSummary{}}
	for i, m := range ms {
		if i == limit {
			// The token is the last id in hex, padded to whole 16-digit
			// groups as the model's pattern wants.
			tok := []byte(ms[i-1].ID)
			for len(tok)%8 != 0 {
				tok = append(tok, 0)
			}
			out.NextToken = ref(hex.EncodeToString(tok))
			break
		}
		s := api.BulkOperationSummary{BulkOperationArn: ref(m.ARN()), BulkOperationStatus: m.Status, StartTime: epochRef(m.Start)}
		if m.terminal() {
			s.EndTime = epochRef(m.End)
		}
		out.BulkOperationsSummaryList = append(out.BulkOperationsSummaryList, s)
	}
	return out, nil
}

// Cancel asks operation arn to stop: CANCELLING now, CANCELLED once its
// job has stopped; what it wrote stays.
func (x *Jobs) Cancel(c Core, ns api.Namespace, arn string) (*api.CancelBulkOperationOutput, error) {
	m, err := get(c, ns, arn)
	if err != nil {
		return nil, err
	}
	r := x.lookupRun(m.ID)
	if r != nil {
		r.mu.Lock()
		defer r.mu.Unlock()
		// Read again under the run's lock: the job's last commit is in.
		if m, err = get(c, ns, arn); err != nil {
			return nil, err
		}
	}
	switch m.Status {
	case statusCancelling:
	case statusInProgress:
		m.Status = statusCancelling
		b := c.Store().NewBatch()
		if err := putOp(b.Set, m); err != nil {
			_ = b.Close()
			return nil, c.InternalError(err)
		}
		if err := c.Commit(b); err != nil {
			return nil, c.InternalError(err)
		}
		if r != nil {
			r.cancel = true
		}
	default:
		return nil, api.Validation("Bulk operation %s cannot be cancelled: its status is %s", arn, m.Status)
	}
	return &api.CancelBulkOperationOutput{BulkOperationArn: ref(arn), BulkOperationStatus: statusCancelling}, nil
}

// Running reports whether an operation of ns runs (or is cancelling) on
// the table incarnation id: a replica may not be added meanwhile.
func Running(r kv.Reader, ns api.Namespace, id [16]byte) (bool, error) {
	all, err := scanOps(r, recordPrefix(ns))
	if err != nil {
		return false, err
	}
	for _, m := range all {
		if m.TableID == id && !m.terminal() {
			return true, nil
		}
	}
	return false, nil
}
