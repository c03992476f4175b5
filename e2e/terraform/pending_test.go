package terraform_test

import "testing"

// TestPending lists the Terraform scenarios whose DynamoDB API ExtendDB
// does not serve yet (it answers UnknownOperationException or refuses the
// request), so they show in every run as skipped with the issue that
// builds them instead of silently missing. When an issue lands, its entry
// becomes a scenario beside TestImport.
func TestPending(t *testing.T) {
	findTools(t)
	for _, p := range []struct{ resource, why string }{
		{"aws_dynamodb_table_replica", "pending: issue 13 (UpdateTable ReplicaUpdates is served and TestReplicaBlock passes; this resource has not been run yet)"},
		{"aws_dynamodb_global_table", "pending: issue 13 (the 2017.11.29 operations are served with --legacy-global-tables and --load links the tables; no real-Terraform scenario yet)"},
	} {
		t.Run(p.resource, func(t *testing.T) { t.Skip(p.why) })
	}
}
