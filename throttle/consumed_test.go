package throttle

import "testing"

// Consumed totals what was charged per direction, to the table and to each
// index separately, and keeps counting across a re-registration (UpdateTable
// changing the throughput), which auto scaling relies on to sample it.
func TestConsumed(t *testing.T) {
	m := newManager(t, Config{})
	tbl := register(t, m, "T", ProvisionedThroughput(10, 10))
	ix := registerIndex(t, tbl, "G", ProvisionedThroughput(5, 5))
	tbl.Charge(t0, Read, "k", 2.5)
	tbl.Charge(t0, Write, "k", 1)
	tbl.Charge(t0, Write, "", 3)
	ix.Charge(t0, Write, "i", 4)
	tbl.Charge(t0, Read, "k", -1) // ignored, as by the buckets
	if got := tbl.Consumed(Read); got != 2.5 {
		t.Fatalf("table Consumed(Read) = %v, want 2.5", got)
	}
	if got := tbl.Consumed(Write); got != 4 {
		t.Fatalf("table Consumed(Write) = %v, want 4", got)
	}
	if got := ix.Consumed(Write); got != 4 {
		t.Fatalf("index Consumed(Write) = %v, want 4", got)
	}
	again := register(t, m, "T", ProvisionedThroughput(20, 20))
	again.Charge(t0, Read, "k", 1)
	if got := again.Consumed(Read); got != 3.5 {
		t.Fatalf("Consumed(Read) after re-registering = %v, want 3.5", got)
	}
}
