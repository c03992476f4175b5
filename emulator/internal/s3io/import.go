package s3io

// ImportTable's stored form and its operations.
//
// ImportTable stores the new table (CREATING while its import runs) and
// the import record (IN_PROGRESS) in one batch, then a job
// (import_job.go) loads the objects under the prefix into it.

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
)

const (
	importInProgress = "IN_PROGRESS"
	importCompleted  = "COMPLETED"
	importFailed     = "FAILED"

	msgItemValidation = "Some of the items failed validation checks and were not imported. Please check CloudWatch error logs for more details."

	// maxItemBytes is DynamoDB's item size limit.
	maxItemBytes = 400 * 1024
)

// importMeta is one import's stored record.
type importMeta struct {
	Version int `json:"v"`
	jobRecord
	ClientToken  string                       `json:"token"`
	Source       api.S3BucketSource           `json:"source"`
	Format       string                       `json:"format"`
	Options      *api.InputFormatOptions      `json:"options,omitempty"`
	Compression  string                       `json:"compression"`
	Params       *api.TableCreationParameters `json:"params"`
	Processed    int64                        `json:"processed"`
	Imported     int64                        `json:"imported"`
	Errors       int64                        `json:"errors"`
	ProcessedB   int64                        `json:"processedBytes"`
	FailureCode  string                       `json:"failureCode,omitempty"`
	FailureMsg   string                       `json:"failureMessage,omitempty"`
	TableDropped bool                         `json:"dropped,omitempty"`
	// ErrorLog holds the first maxImportErrorLog error records, what AWS
	// writes to CloudWatch Logs (ImportErrors serves them).
	ErrorLog []ImportErrorRecord `json:"errorLog,omitempty"`
}

// maxImportErrorLog bounds the error records an import keeps.
const maxImportErrorLog = 100

// ImportErrorRecord is one record of an import's error log, as AWS writes
// it to the log group /aws-dynamodb/imports, stream <import-id>/error.
type ImportErrorRecord struct {
	ItemS3Pointer ItemS3Pointer `json:"itemS3Pointer"`
	ImportArn     string        `json:"importArn"`
	ErrorMessages []string      `json:"errorMessages"`
}

// ItemS3Pointer locates a bad item: its object and its index in it.
type ItemS3Pointer struct {
	Bucket    string `json:"bucket"`
	Key       string `json:"key"`
	ItemIndex int64  `json:"itemIndex"`
}

// ARN is the target table's ARN plus /import/<id>.
func (m *importMeta) ARN() string { return m.tableARN() + "/import/" + m.ID }

func (m *importMeta) logGroupARN() string {
	return fmt.Sprintf("arn:%s:logs:%s:%s:log-group:/aws-dynamodb/imports:*", m.ns().Partition(), m.Region, m.Account)
}

func importKey(ns api.Namespace, id string) []byte { return append(recordPrefix(Import, ns), id...) }

// ImportTable creates a table and loads it from the S3 stand-in; the
// answer is IN_PROGRESS and the table CREATING until the job ends. The
// request has passed the model's member constraints and the table to
// create (cin, from its TableCreationParameters) CreateTable's checks.
func (x *Jobs) ImportTable(c Core, ns api.Namespace, in *api.ImportTableInput, cin *api.CreateTableInput) (*api.ImportTableOutput, error) {
	now := c.Now()
	name := *cin.TableName
	c.LockCatalog()
	defer c.UnlockCatalog()
	all, err := scanRecords[importMeta](c.Store(), recordPrefix(Import, ns))
	if err != nil {
		return nil, c.InternalError(err)
	}
	var old *importMeta
	for _, m := range all {
		if m.ClientToken == *in.ClientToken {
			old = m
		}
	}
	if old != nil && old.TableName != name {
		return nil, api.NewError(api.CodeImportConflict, "Duplicate request detected with conflicting parameters")
	}
	if old != nil && old.Status == importInProgress {
		return &api.ImportTableOutput{ImportTableDescription: describeImport(old)}, nil
	}
	if err := c.FreeTableName(ns, name, now); err != nil {
		return nil, err
	}
	if old != nil {
		return &api.ImportTableOutput{ImportTableDescription: describeImport(old)}, nil
	}
	t, err := c.NewTable(ns, cin, now)
	if err != nil {
		return nil, err
	}
	id, err := c.NewID(now)
	if err != nil {
		return nil, c.InternalError(err)
	}
	m := &importMeta{jobRecord: jobRecord{Account: ns.Account, Region: ns.Region, ID: id, TableName: name, TableID: t.ID(),
		Status: importInProgress, Start: now}, ClientToken: *in.ClientToken, Source: *in.S3BucketSource, Format: *in.InputFormat,
		Options: in.InputFormatOptions, Compression: strOrDefault(in.InputCompressionType, "NONE"), Params: in.TableCreationParameters}
	b := c.Store().NewBatch()
	if err := t.Create(b, m.ARN()); err != nil {
		_ = b.Close()
		return nil, c.InternalError(err)
	}
	m.Version = recordVersion
	if err := putRecord(b, importKey(ns, m.ID), m); err != nil {
		_ = b.Close()
		return nil, c.InternalError(err)
	}
	if err := c.Commit(b); err != nil {
		return nil, c.InternalError(err)
	}
	t.Cache()
	x.startImport(c, m, t)
	return &api.ImportTableOutput{ImportTableDescription: describeImport(m)}, nil
}

func describeImport(m *importMeta) *api.ImportTableDescription {
	src := m.Source
	d := &api.ImportTableDescription{ImportArn: m.ARN(), ImportStatus: m.Status, TableArn: m.tableARN(), TableId: m.TableID.UUID(),
		ClientToken: ref(m.ClientToken), S3BucketSource: &src, CloudWatchLogGroupArn: m.logGroupARN(), InputFormat: m.Format,
		InputFormatOptions: m.Options, InputCompressionType: m.Compression, TableCreationParameters: m.Params,
		StartTime: epochRef(m.Start), ErrorCount: m.Errors, ProcessedItemCount: m.Processed, ImportedItemCount: m.Imported}
	if m.Status != importInProgress {
		d.EndTime = epochRef(m.End)
		d.ProcessedSizeBytes = ref(m.ProcessedB)
	}
	if m.FailureCode != "" {
		d.FailureCode, d.FailureMessage = ref(m.FailureCode), ref(m.FailureMsg)
	}
	return d
}

// parseImportARN splits arn:P:dynamodb:REGION:ACCOUNT:table/NAME/import/ID.
func parseImportARN(s string) (ns api.Namespace, partition, id string, ok bool) {
	f := strings.SplitN(s, ":", 6)
	if len(f) != 6 || f[0] != "arn" || f[2] != "dynamodb" || strings.IndexByte(s, 0) >= 0 {
		return ns, "", "", false
	}
	parts := strings.Split(f[5], "/")
	if len(parts) != 4 || parts[0] != "table" || parts[1] == "" || parts[2] != "import" || parts[3] == "" {
		return ns, "", "", false
	}
	return api.Namespace{Account: f[4], Region: f[3]}, f[1], parts[3], true
}

// getImport reads import arn of ns: ImportNotFoundException for another
// namespace's or an unknown import, a validation error for a malformed ARN.
func getImport(c Core, ns api.Namespace, arn string) (*importMeta, error) {
	ins, part, id, ok := parseImportARN(arn)
	if !ok {
		return nil, api.Validation("Invalid importArn: %s", arn)
	}
	notFound := api.NewError(api.CodeImportNotFound, "Import not found: %s", arn)
	if ins != ns || part != ns.Partition() {
		return nil, notFound
	}
	var m importMeta
	found, err := getRecord(c.Store(), importKey(ns, id), &m)
	if err != nil {
		return nil, c.InternalError(err)
	}
	if !found || m.ARN() != arn {
		return nil, notFound
	}
	return &m, nil
}

// ImportErrors returns the error log of import arn (the first 100
// records), ExtendDB's stand-in for its CloudWatch log stream.
func (x *Jobs) ImportErrors(c Core, ns api.Namespace, arn string) ([]ImportErrorRecord, error) {
	m, err := getImport(c, ns, arn)
	if err != nil {
		return nil, err
	}
	if m.ErrorLog == nil {
		return []ImportErrorRecord{}, nil
	}
	return m.ErrorLog, nil
}

// DescribeImport reports import arn, a string of valid length.
func (x *Jobs) DescribeImport(c Core, ns api.Namespace, arn string) (*api.DescribeImportOutput, error) {
	m, err := getImport(c, ns, arn)
	if err != nil {
		return nil, err
	}
	return &api.DescribeImportOutput{ImportTableDescription: describeImport(m)}, nil
}

// ListImports lists the namespace's imports (of one table with TableArn)
// whose ARN sorts before after (the NextToken's, "" for the first page),
// running ones too, in reverse ImportArn order. The request has passed the
// model's member constraints.
func (x *Jobs) ListImports(c Core, ns api.Namespace, in *api.ListImportsInput, after string) (*api.ListImportsOutput, error) {
	all, err := scanRecords[importMeta](c.Store(), recordPrefix(Import, ns))
	if err != nil {
		return nil, c.InternalError(err)
	}
	var ms []*importMeta
	for _, m := range all {
		if (in.TableArn == nil || m.tableARN() == *in.TableArn) && (after == "" || m.ARN() < after) {
			ms = append(ms, m)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].ARN() > ms[j].ARN() })
	limit := 25
	if in.PageSize != nil {
		limit = int(*in.PageSize)
	}
	out := &api.ListImportsOutput{ImportSummaryList: []api.ImportSummary{}}
	for i, m := range ms {
		if i == limit {
			// The token is the last ARN in hex, padded to whole 16-digit
			// groups as the model's pattern wants.
			tok := []byte(ms[i-1].ARN())
			for len(tok)%8 != 0 {
				tok = append(tok, 0)
			}
			out.NextToken = ref(hex.EncodeToString(tok))
			break
		}
		src := m.Source
		s := api.ImportSummary{ImportArn: m.ARN(), ImportStatus: m.Status, TableArn: m.tableARN(), S3BucketSource: &src,
			CloudWatchLogGroupArn: m.logGroupARN(), InputFormat: m.Format, StartTime: epochRef(m.Start)}
		if m.Status != importInProgress {
			s.EndTime = epochRef(m.End)
		}
		out.ImportSummaryList = append(out.ImportSummaryList, s)
	}
	return out, nil
}
