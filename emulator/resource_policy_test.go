package emulator

import (
	"testing"
	"time"
)

// Metadata written before policies were versioned kept CreateTable's policy
// in ResourcePolicy: it still reads as the table's policy, with the
// creation time as its revision, and a change replaces it.
func TestPolicyOfUnversionedMetadata(t *testing.T) {
	created := time.Date(2026, 1, 2, 3, 4, 5, 6000000, time.UTC)
	tm := &tableMeta{tableAccess: tableAccess{ResourcePolicy: `{"Statement":[]}`}, CreatedAt: created}
	p := tm.policyOf("")
	if !p.present() || p.Doc != `{"Statement":[]}` || p.Revision != "1767323045006" {
		t.Fatalf("policyOf = %+v", p)
	}
	tm.setPolicyOf("", &resourcePolicy{Doc: "new", Revision: nextRevision(p, created)})
	if tm.ResourcePolicy != "" || tm.policyOf("").Doc != "new" || tm.policyOf("").Revision != "1767323045007" {
		t.Fatalf("after a change: %+v / %+v", tm.ResourcePolicy, tm.policyOf(""))
	}
	if tm.policyOf("label") != nil {
		t.Fatal("a stream without a policy has one")
	}
}
