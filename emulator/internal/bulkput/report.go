package bulkput

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/kv"
)

// reportLinesPerFile bounds the lines of one report object.
const reportLinesPerFile = 10000

// errorLine is one line of the ERROR report: a record that was not
// written, where it is, and why.
type errorLine struct {
	ObjectKey    string          `json:"objectKey"`
	RecordIndex  int64           `json:"recordIndex"`
	ErrorCode    string          `json:"errorCode"`
	ErrorMessage string          `json:"errorMessage"`
	Record       string          `json:"record,omitempty"`
	Item         json.RawMessage `json:"item,omitempty"`
}

// conditionLine is one line of the CONDITION_CHECK_FAILURE report: the
// item that was not written and the item its condition was checked on.
type conditionLine struct {
	ObjectKey    string          `json:"objectKey"`
	RecordIndex  int64           `json:"recordIndex"`
	Item         json.RawMessage `json:"item"`
	ExistingItem json.RawMessage `json:"existingItem,omitempty"`
}

func (m *opMeta) wants(kind string) bool {
	for _, k := range m.Output.OutputType {
		if k == kind {
			return true
		}
	}
	return false
}

// apply counts the outcomes of puts in m, moves its position past them,
// and stages their report lines with set.
func (m *opMeta) apply(puts []Put, outs []Outcome, set func(k, v []byte) error) error {
	for j, o := range outs {
		p := &puts[j]
		m.Processed++
		m.Record = p.Pos + 1
		switch {
		case o.Err != nil:
			m.Failed++
			if !m.wants(outputError) {
				continue
			}
			l := errorLine{ObjectKey: m.ObjectKey, RecordIndex: p.Pos, ErrorCode: api.CodeValidation, ErrorMessage: o.Err.Error()}
			var ae *api.Error
			if errors.As(o.Err, &ae) {
				l.ErrorCode, l.ErrorMessage = ae.Code, ae.Message
			}
			if len(p.Raw) > 0 {
				l.Record = string(p.Raw)
			} else if p.Item != nil {
				l.Item = av.AppendItemJSON(nil, p.Item)
			}
			if err := setJSON(set, reportKey(m.ID, kindError, p.Object, p.Pos), l); err != nil {
				return err
			}
		case o.ConditionFailed:
			m.Conditions++
			if !m.wants(outputCondition) {
				continue
			}
			l := conditionLine{ObjectKey: m.ObjectKey, RecordIndex: p.Pos, Item: av.AppendItemJSON(nil, p.Item)}
			if o.Existing != nil {
				l.ExistingItem = av.AppendItemJSON(nil, o.Existing)
			}
			if err := setJSON(set, reportKey(m.ID, kindCondition, p.Object, p.Pos), l); err != nil {
				return err
			}
		default:
			m.TableBytes += o.TableBytes
			for _, ix := range o.Indexes {
				if ix.Local {
					if m.LSIBytes == nil {
						m.LSIBytes = map[string]int64{}
					}
					m.LSIBytes[ix.Name] += ix.Bytes
				} else {
					if m.GSIBytes == nil {
						m.GSIBytes = map[string]int64{}
					}
					m.GSIBytes[ix.Name] += ix.Bytes
				}
			}
			for _, v := range o.Vectors {
				if m.VecBytes == nil {
					m.VecBytes = map[string]int64{}
				}
				m.VecBytes[v.Name] += v.Bytes
			}
		}
	}
	return nil
}

func setJSON(set func(k, v []byte) error, k []byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return set(k, b)
}

// reportBase is where the reports of m go:
// <prefix>/AWSDynamoDB/BulkPut/<operation id>/.
func reportBase(m *opMeta) string {
	base := ""
	if p := m.Output.S3KeyPrefix; p != nil && *p != "" {
		base = strings.TrimSuffix(*p, "/") + "/"
	}
	return base + "AWSDynamoDB/BulkPut/" + m.ID + "/"
}

// reportFile is one report object the manifest lists.
type reportFile struct {
	OutputType string `json:"outputType"`
	Key        string `json:"key"`
	ItemCount  int    `json:"itemCount"`
}

// writeReports writes the report lines of m as JSON Lines objects
// (<base><OUTPUT_TYPE>/data-NNNNN.json) and a manifest-summary.json.
// Writing them again after a restart writes the same objects.
func (x *Jobs) writeReports(ctx context.Context, c Core, m *opMeta, status string) error {
	obj := c.Objects()
	bucket, base := outputBucket(m), reportBase(m)
	var files []reportFile
	for _, k := range []struct {
		name string
		kind byte
	}{{outputError, kindError}, {outputCondition, kindCondition}} {
		if !m.wants(k.name) {
			continue
		}
		p := append(reportPrefix(m.ID), k.kind)
		it, err := c.Store().NewIter(p, kv.PrefixEnd(p))
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		lines := 0
		flush := func() error {
			if lines == 0 {
				return nil
			}
			key := fmt.Sprintf("%s%s/data-%05d.json", base, k.name, len(files))
			if _, err := obj.Put(ctx, bucket, key, buf.Bytes()); err != nil {
				return err
			}
			files = append(files, reportFile{OutputType: k.name, Key: key, ItemCount: lines})
			buf.Reset()
			lines = 0
			return nil
		}
		for ok := it.First(); ok; ok = it.Next() {
			buf.Write(it.Value())
			buf.WriteByte('\n')
			lines++
			if lines == reportLinesPerFile {
				if err := flush(); err != nil {
					_ = it.Close()
					return err
				}
			}
		}
		if err := it.Close(); err != nil {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
	}
	manifest := struct {
		BulkOperationArn           string       `json:"bulkOperationArn"`
		Status                     string       `json:"status"`
		ProcessedItemCount         int64        `json:"processedItemCount"`
		FailedItemCount            int64        `json:"failedItemCount"`
		ConditionCheckFailureCount int64        `json:"conditionCheckFailureCount"`
		OutputFiles                []reportFile `json:"outputFiles"`
	}{m.ARN(), status, m.Processed, m.Failed, m.Conditions, files}
	if manifest.OutputFiles == nil {
		manifest.OutputFiles = []reportFile{}
	}
	b, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return err
	}
	_, err = obj.Put(ctx, bucket, base+"manifest-summary.json", b)
	return err
}

// limiter is MaxWriteRequestUnits: a token bucket of write units that
// starts empty and holds at most one second of them.
type limiter struct {
	rate   float64
	tokens float64
	last   time.Time
}

func newLimiter(max *int64) *limiter {
	if max == nil {
		return nil
	}
	return &limiter{rate: float64(*max), last: time.Now()}
}

// wait takes units, sleeping until the bucket has had them.
func (l *limiter) wait(ctx context.Context, units float64) error {
	if l == nil || units == 0 {
		return nil
	}
	now := time.Now()
	l.tokens = min(l.rate, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	l.last = now
	l.tokens -= units
	if l.tokens >= 0 {
		return nil
	}
	t := time.NewTimer(time.Duration(-l.tokens / l.rate * float64(time.Second)))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
