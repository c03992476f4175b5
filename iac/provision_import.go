package iac

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
)

// importTable creates the table with ImportTable, as Terraform's
// import_table and CloudFormation's ImportSourceSpecification do, and waits
// for the import to end. Items that failed validation leave the table with
// the valid ones (a warning); any other failure leaves no table (an error).
func (p *provisioner) importTable(ctx context.Context) bool {
	c := p.s.Create
	in := *p.s.Import
	in.ClientToken = spec.Str(newToken())
	in.TableCreationParameters = &api.TableCreationParameters{TableName: c.TableName,
		AttributeDefinitions: c.AttributeDefinitions, KeySchema: c.KeySchema, BillingMode: c.BillingMode,
		ProvisionedThroughput: c.ProvisionedThroughput, OnDemandThroughput: c.OnDemandThroughput,
		SSESpecification: c.SSESpecification, GlobalSecondaryIndexes: c.GlobalSecondaryIndexes, VectorIndexes: c.VectorIndexes}
	if len(c.LocalSecondaryIndexes) > 0 || c.StreamSpecification != nil {
		p.diags.Warnf(p.s.Pos, "%s: ImportTable creates no local secondary indexes or stream; they are left out", p.s.Source)
	}
	out, err := p.eng.ImportTable(ctx, p.ns, &in)
	if err != nil {
		p.failAt("ImportTable", err)
		return false
	}
	arn := out.ImportTableDescription.ImportArn
	for {
		d, err := p.eng.DescribeImport(ctx, p.ns, &api.DescribeImportInput{ImportArn: &arn})
		if err != nil {
			p.failAt("DescribeImport", err)
			return false
		}
		switch desc := d.ImportTableDescription; desc.ImportStatus {
		case "COMPLETED":
			return true
		case "IN_PROGRESS":
		default:
			msg := fmt.Sprintf("%s: import %s ended %s: %s: %s (%d items imported, %d errors)", p.s.Source, arn, desc.ImportStatus,
				derefOr(desc.FailureCode, ""), derefOr(desc.FailureMessage, ""), desc.ImportedItemCount, desc.ErrorCount)
			if derefOr(desc.FailureCode, "") == "ItemValidationError" {
				p.diags.Warnf(p.s.Pos, "%s", msg)
				return true
			}
			p.failed = true
			p.diags.Errorf(p.s.Pos, "%s", msg)
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// newToken is a random UUID, the ClientToken the SDKs generate.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
