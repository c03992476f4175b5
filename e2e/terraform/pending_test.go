package terraform_test

import "testing"

// TestPending lists the Terraform scenarios whose DynamoDB API ExtendDB
// does not serve yet (it answers UnknownOperationException or refuses the
// request), so they show in every run as skipped with the issue that
// builds them instead of silently missing. When an issue lands, its entry
// becomes a scenario beside TestImport.
func TestPending(t *testing.T) {
	findTools(t)
	// None is pending now: aws_dynamodb_table_replica and
	// aws_dynamodb_global_table (issue 13) became TestTableReplicaResource
	// and TestLegacyGlobalTable.
	for _, p := range []struct{ resource, why string }{} {
		t.Run(p.resource, func(t *testing.T) { t.Skip(p.why) })
	}
}
