package s3io

// ExportTableToPointInTime's stored form and its operations.
//
// The export id is the ARN's suffix (as a backup's, "0" + 13-digit epoch
// ms + "-" + 8 hex digits), so an ExportArn names its record directly.
//
// Consistency. The request takes a store snapshot and writes the record
// (IN_PROGRESS) under the catalog lock; a job (export_job.go) then writes
// the layout of an AWS export from the snapshot to the S3 stand-in.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

const (
	exportInProgress = "IN_PROGRESS"
	exportCompleted  = "COMPLETED"
	exportFailed     = "FAILED"

	exportFull        = "FULL_EXPORT"
	exportIncremental = "INCREMENTAL_EXPORT"

	// defaultExportFileItems is how many items go in one data file.
	defaultExportFileItems = 100_000

	// exportTimeSlack is how far ExportTime may lie after the request:
	// clients send "now" read from their own clock.
	exportTimeSlack = 5 * time.Second
)

// exportMeta is one export's stored record.
type exportMeta struct {
	Version int `json:"v"`
	// Owner is the process running it, on a shared store (the engine's
	// lease.go): the leader fails it once that process is gone.
	Owner string `json:"proc,omitempty"`
	jobRecord
	ExportTime  time.Time                           `json:"exportTime"`
	ClientToken string                              `json:"token,omitempty"`
	Bucket      string                              `json:"bucket"`
	BucketOwner *string                             `json:"owner,omitempty"`
	Prefix      *string                             `json:"prefix,omitempty"`
	SSE         *string                             `json:"sse,omitempty"`
	SSEKey      *string                             `json:"sseKey,omitempty"`
	Format      string                              `json:"format"`
	Type        string                              `json:"type"`
	Incremental *api.IncrementalExportSpecification `json:"incr,omitempty"`
	// Filter is the request's FilterSpecification, as DescribeExport
	// echoes it; filter is it bound to the table, which the job uses (an
	// export does not outlive its process: FailUnfinishedExports).
	Filter *api.FilterSpecification `json:"filter,omitempty"`
	filter *exportFilter
	// KeyNames are the table's key attributes (an incremental export's
	// Keys).
	KeyNames       []string `json:"keys,omitempty"`
	Manifest       string   `json:"manifest,omitempty"`
	FailureCode    string   `json:"failureCode,omitempty"`
	FailureMessage string   `json:"failureMessage,omitempty"`
	Billed         int64    `json:"billed,omitempty"`
	Items          int64    `json:"items,omitempty"`
}

// ARN is the export's ARN: the table's plus /export/<id>.
func (m *exportMeta) ARN() string { return m.tableARN() + "/export/" + m.ID }

// base is the key prefix of everything the export writes.
func (m *exportMeta) base() string {
	p := ""
	if m.Prefix != nil && *m.Prefix != "" {
		p = strings.TrimSuffix(*m.Prefix, "/") + "/"
	}
	return p + "AWSDynamoDB/" + m.ID + "/"
}

// outputView is the manifest's outputView: NEW_IMAGE for a full export,
// the view type of an incremental one.
func (m *exportMeta) outputView() string {
	if m.Incremental != nil && m.Incremental.ExportViewType != nil {
		return *m.Incremental.ExportViewType
	}
	return "NEW_IMAGE"
}

func exportKey(ns api.Namespace, id string) []byte { return append(recordPrefix(Export, ns), id...) }

func putExport(c Core, m *exportMeta) error {
	b := c.Store().NewBatch()
	m.Version = recordVersion
	if err := putRecord(b, exportKey(m.ns(), m.ID), m); err != nil {
		_ = b.Close()
		return err
	}
	return c.Commit(b)
}

func timeOf(f float64) time.Time { return time.UnixMilli(int64(f * 1000)).UTC() }

// ExportTableToPointInTime starts an export of a table with PITR on to
// the S3 stand-in; the answer is IN_PROGRESS and a job writes the files.
// The request has passed the model's member constraints.
func (x *Jobs) ExportTableToPointInTime(c Core, ns api.Namespace, in *api.ExportTableToPointInTimeInput) (*api.ExportTableToPointInTimeOutput, error) {
	typ := strOrDefault(in.ExportType, exportFull)
	if typ == exportIncremental && in.IncrementalExportSpecification == nil {
		return nil, api.Validation("IncrementalExportSpecification must be provided when ExportType is INCREMENTAL_EXPORT")
	}
	if typ == exportFull && in.IncrementalExportSpecification != nil {
		return nil, api.Validation("IncrementalExportSpecification can only be provided when ExportType is INCREMENTAL_EXPORT")
	}
	var pf *parsedFilter
	if in.FilterSpecification != nil {
		var err error
		if pf, err = parseFilter(in.FilterSpecification); err != nil {
			return nil, err
		}
	}
	now := c.Now()
	c.LockCatalog()
	defer c.UnlockCatalog()
	src, err := c.ExportSource(ns, *in.TableArn, now)
	if err != nil {
		return nil, err
	}
	m, err := planExport(c, ns, in, typ, src, now)
	if err != nil {
		return nil, err
	}
	if pf != nil {
		if m.filter, err = pf.bind(src); err != nil {
			return nil, err
		}
		m.Filter = in.FilterSpecification
	}
	if in.ClientToken != nil {
		m.ClientToken = *in.ClientToken
		old, err := exportByToken(c, ns, m.ClientToken)
		if err != nil {
			return nil, c.InternalError(err)
		}
		if old != nil {
			if !sameExport(old, m, in.ExportTime != nil) {
				return nil, api.NewError(api.CodeExportConflict, "Duplicate request detected with conflicting parameters")
			}
			return &api.ExportTableToPointInTimeOutput{ExportDescription: describeExport(old)}, nil
		}
	}
	if m.ID, err = c.NewID(now); err != nil {
		return nil, c.InternalError(err)
	}
	snap := c.Store().NewSnapshot()
	if err := putExport(c, m); err != nil {
		_ = snap.Close()
		return nil, c.InternalError(err)
	}
	d := describeExport(m)
	x.startExport(c, m, snap)
	return &api.ExportTableToPointInTimeOutput{ExportDescription: d}, nil
}

// planExport checks the request's times against src's recovery window and
// builds the export's record (IN_PROGRESS, no id yet).
func planExport(c Core, ns api.Namespace, in *api.ExportTableToPointInTimeInput, typ string, src Source, now time.Time) (*exportMeta, error) {
	if typ == exportIncremental {
		// The window must lie in the recovery window, the start first.
		// DynamoDB's 15-minute minimum and 24-hour maximum are not
		// enforced (docs/differences.md).
		spec := in.IncrementalExportSpecification
		if spec.ExportFromTime == nil || timeOf(*spec.ExportFromTime).Before(src.Earliest.Truncate(time.Second)) ||
			(spec.ExportToTime != nil && (timeOf(*spec.ExportToTime).After(now) || !timeOf(*spec.ExportToTime).After(timeOf(*spec.ExportFromTime)))) {
			return nil, api.NewError(api.CodeInvalidExportTime, "Export Time is invalid")
		}
	}
	at := now
	if in.ExportTime != nil {
		at = timeOf(*in.ExportTime)
		// Any moment of the recovery window; clients send "now" read from
		// their own clock, so a second of slack past it is taken as now.
		if at.After(now.Add(exportTimeSlack)) || at.Before(src.Earliest.Truncate(time.Second)) {
			return nil, api.NewError(api.CodeInvalidExportTime, "Export Time is invalid")
		}
		if at.After(now) {
			at = now
		}
	}
	m := &exportMeta{Owner: c.JobOwner(), jobRecord: jobRecord{Account: ns.Account, Region: ns.Region, TableName: src.Name, TableID: src.ID,
		Status: exportInProgress, Start: now}, ExportTime: at, Bucket: *in.S3Bucket,
		BucketOwner: in.S3BucketOwner, Prefix: in.S3Prefix, SSE: in.S3SseAlgorithm, SSEKey: in.S3SseKmsKeyId,
		Format: strOrDefault(in.ExportFormat, formatDynamoDBJSON), Type: typ, Incremental: in.IncrementalExportSpecification}
	if typ == exportIncremental {
		spec := *in.IncrementalExportSpecification
		if spec.ExportToTime == nil {
			spec.ExportToTime = ref(api.EpochSeconds(now))
		}
		if spec.ExportViewType == nil {
			spec.ExportViewType = ref("NEW_AND_OLD_IMAGES")
		}
		m.Incremental = &spec
		m.KeyNames = append(m.KeyNames, src.Keys...)
	}
	return m, nil
}

func eqStr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// sameExport reports whether a retried request asks for the export old is
// (the same token may only repeat the same parameters).
func sameExport(old, m *exportMeta, timed bool) bool {
	if old.TableName != m.TableName || old.Bucket != m.Bucket || !eqStr(old.BucketOwner, m.BucketOwner) ||
		!eqStr(old.Prefix, m.Prefix) || !eqStr(old.SSE, m.SSE) || !eqStr(old.SSEKey, m.SSEKey) ||
		old.Format != m.Format || old.Type != m.Type || !sameFilter(old.Filter, m.Filter) {
		return false
	}
	return !timed || old.ExportTime.Equal(m.ExportTime)
}

// sameFilter reports whether two FilterSpecifications are the same, by
// their stored form.
func sameFilter(a, b *api.FilterSpecification) bool {
	if a == nil || b == nil {
		return a == b
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// exportByToken finds ns's export with ClientToken token, or nil.
func exportByToken(c Core, ns api.Namespace, token string) (*exportMeta, error) {
	all, err := scanRecords[exportMeta](c.Store(), recordPrefix(Export, ns))
	if err != nil {
		return nil, err
	}
	for _, m := range all {
		if m.ClientToken == token {
			return m, nil
		}
	}
	return nil, nil
}

func describeExport(m *exportMeta) *api.ExportDescription {
	d := &api.ExportDescription{ExportArn: m.ARN(), ExportStatus: m.Status, StartTime: epochRef(m.Start),
		TableArn: m.tableARN(), TableId: m.TableID.UUID(), ExportTime: epochRef(m.ExportTime),
		S3Bucket: m.Bucket, S3BucketOwner: m.BucketOwner, S3Prefix: m.Prefix, S3SseAlgorithm: m.SSE,
		S3SseKmsKeyId: m.SSEKey, ExportFormat: m.Format, ExportType: m.Type, IncrementalExportSpecification: m.Incremental,
		FilterSpecification: m.Filter}
	if m.ClientToken != "" {
		d.ClientToken = ref(m.ClientToken)
	}
	switch m.Status {
	case exportCompleted:
		d.EndTime = epochRef(m.End)
		d.ExportManifest = ref(m.Manifest)
		d.ItemCount, d.BilledSizeBytes = ref(m.Items), ref(m.Billed)
	case exportFailed:
		d.EndTime = epochRef(m.End)
		d.FailureCode, d.FailureMessage = ref(m.FailureCode), ref(m.FailureMessage)
	}
	return d
}

// parseExportARN splits arn:P:dynamodb:REGION:ACCOUNT:table/NAME/export/ID.
func parseExportARN(s string) (ns api.Namespace, partition, table, id string, ok bool) {
	f := strings.SplitN(s, ":", 6)
	if len(f) != 6 || f[0] != "arn" || strings.IndexByte(s, 0) >= 0 {
		return ns, "", "", "", false
	}
	parts := strings.Split(f[5], "/")
	if len(parts) != 4 || parts[0] != "table" || parts[1] == "" || parts[2] != "export" || parts[3] == "" {
		return ns, "", "", "", false
	}
	return api.Namespace{Account: f[4], Region: f[3]}, f[1], parts[1], parts[3], f[2] == "dynamodb"
}

// DescribeExport reports export arn, a string of valid length.
func (x *Jobs) DescribeExport(c Core, ns api.Namespace, arn string) (*api.DescribeExportOutput, error) {
	ens, part, _, id, ok := parseExportARN(arn)
	if !ok && (part == "" || ens.Region == "") {
		return nil, api.Validation("Invalid Export ARN")
	}
	if !ok || ens != ns || part != ns.Partition() {
		return nil, api.NewError(api.CodeAccessDenied, "Access is denied")
	}
	var m exportMeta
	found, err := getRecord(c.Store(), exportKey(ns, id), &m)
	if err != nil {
		return nil, c.InternalError(err)
	}
	if !found || m.ARN() != arn {
		return nil, api.NewError(api.CodeExportNotFound, "Export not found: %s", arn)
	}
	return &api.DescribeExportOutput{ExportDescription: describeExport(&m)}, nil
}

// ListExports lists the namespace's exports (of one table with TableArn),
// running and failed ones too, in reverse ExportArn order. The request
// has passed the model's member constraints.
func (x *Jobs) ListExports(c Core, ns api.Namespace, in *api.ListExportsInput) (*api.ListExportsOutput, error) {
	all, err := scanRecords[exportMeta](c.Store(), recordPrefix(Export, ns))
	if err != nil {
		return nil, c.InternalError(err)
	}
	var arns []*exportMeta
	for _, m := range all {
		if in.TableArn == nil || m.tableARN() == *in.TableArn {
			arns = append(arns, m)
		}
	}
	sort.Slice(arns, func(i, j int) bool { return arns[i].ARN() > arns[j].ARN() })
	if in.NextToken != nil {
		after, err := base64.RawURLEncoding.DecodeString(*in.NextToken)
		if err != nil || len(after) == 0 {
			return nil, api.Validation("Invalid NextToken")
		}
		i := sort.Search(len(arns), func(i int) bool { return arns[i].ARN() < string(after) })
		arns = arns[i:]
	}
	limit := 25
	if in.MaxResults != nil {
		limit = int(*in.MaxResults)
	}
	out := &api.ListExportsOutput{ExportSummaries: []api.ExportSummary{}}
	for i, m := range arns {
		if i == limit {
			out.NextToken = ref(base64.RawURLEncoding.EncodeToString([]byte(arns[i-1].ARN())))
			break
		}
		out.ExportSummaries = append(out.ExportSummaries, api.ExportSummary{ExportArn: m.ARN(), ExportStatus: m.Status, ExportType: m.Type})
	}
	return out, nil
}
