package insights

import (
	"reflect"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

func s(v string) av.Value { return av.Value{Type: av.TypeS, S: v} }

// key is a stored key: a 4-byte hash prefix, then the encoded values.
func key(vs ...av.Value) []byte {
	b := []byte{0, 0, 0, 1}
	for _, v := range vs {
		b = av.AppendKey(b, v)
	}
	return b
}

// TestSettingStatus: ENABLING until the transition ends, then ENABLED;
// DISABLING, then DISABLED; nil is DISABLED and never counts.
func TestSettingStatus(t *testing.T) {
	t0 := time.Unix(1000, 0)
	on := Update(nil, "ENABLE", nil, t0, time.Second)
	if on.Mode != ModeAll || on.Status(t0) != Enabling || on.Status(t0.Add(time.Second)) != Enabled || !on.Counting() {
		t.Errorf("enable: %+v %s", on, on.Status(t0))
	}
	off := Update(on, "DISABLE", nil, t0.Add(2*time.Second), time.Second)
	if off.Mode != ModeAll || off.Status(t0.Add(2*time.Second)) != Disabling || off.Status(t0.Add(3*time.Second)) != Disabled || off.Counting() {
		t.Errorf("disable: %+v", off)
	}
	var none *Setting
	if none.Status(t0) != Disabled || none.Counting() {
		t.Error("nil setting")
	}
}

// TestRuleNames: accessed before throttled, sort-key rules only with a
// sort key, accessed ones only in ACCESSED_AND_THROTTLED_KEYS mode.
func TestRuleNames(t *testing.T) {
	at := time.UnixMilli(1700000000123)
	got := RuleNames("T", at, ModeThrottled, true)
	want := []string{"DynamoDBContributorInsights-PKT-T-1700000000123", "DynamoDBContributorInsights-SKT-T-1700000000123"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v", got)
	}
	if got := RuleNames("T", at, ModeAll, false); len(got) != 2 || got[0] != "DynamoDBContributorInsights-PKC-T-1700000000123" {
		t.Errorf("got %v", got)
	}
}

// TestListPaging: entries sort by table, the table before its indexes,
// and NextToken resumes after the last entry of a page.
func TestListPaging(t *testing.T) {
	now := time.Unix(1000, 0)
	on := &Setting{Enabled: true, Mode: ModeAll}
	var all []api.ContributorInsightsSummary
	all = Summarize(all, "b", "", on, now, false)
	all = Summarize(all, "a", "g", on, now, false)
	all = Summarize(all, "a", "", nil, now, false) // DISABLED: left out
	all = Summarize(all, "a", "", nil, now, true)
	out := List(all, ListPage{Limit: 2})
	if len(out.ContributorInsightsSummaries) != 2 || out.ContributorInsightsSummaries[0].IndexName != "" || out.ContributorInsightsSummaries[1].IndexName != "g" || out.NextToken == "" {
		t.Fatalf("page 1: %+v", out)
	}
	p, err := ListPageOf(&api.ListContributorInsightsInput{NextToken: &out.NextToken})
	if err != nil {
		t.Fatal(err)
	}
	out = List(all, p)
	if len(out.ContributorInsightsSummaries) != 1 || out.ContributorInsightsSummaries[0].TableName != "b" || out.NextToken != "" {
		t.Fatalf("page 2: %+v", out)
	}
	bad := "!"
	if _, err := ListPageOf(&api.ListContributorInsightsInput{NextToken: &bad}); err == nil {
		t.Error("a bad NextToken is accepted")
	}
}

// TestCounter: partition keys and items are counted by units and by
// refusals and decoded in the report; THROTTLED_KEYS counts no units; a
// counter is kept across re-caching and forgotten with its table.
func TestCounter(t *testing.T) {
	var r Registry
	ns := api.Namespace{Account: "000000000000", Region: "us-east-1"}
	ks := KeySchema{Partition: "pk", Sort: "sk", PartitionType: av.TypeS, SortType: av.TypeS}
	on := &Setting{Enabled: true, Mode: ModeAll}
	c := r.Counter(ns, "t", "", on, ks)
	if c == nil || r.Counter(ns, "t", "", on, ks) != c {
		t.Fatal("counter not kept")
	}
	now := time.Unix(1000, 0)
	c.Consumed(now, key(s("a"), s("1")), 2)
	c.Consumed(now, key(s("a"), s("2")), 1)
	c.Consumed(now, nil, 5) // a Scan: not counted
	c.Throttled(now, key(s("b"), s("1")))
	rep := NewReport("t", "", on, c, now, 0, 0)
	if len(rep.AccessedPartitionKeys) != 1 || rep.AccessedPartitionKeys[0].Count != 3 || rep.AccessedPartitionKeys[0].Key["pk"].S != "a" {
		t.Errorf("accessed partitions: %+v", rep.AccessedPartitionKeys)
	}
	if len(rep.AccessedItems) != 2 || rep.AccessedItems[0].Key["sk"].S != "1" {
		t.Errorf("accessed items: %+v", rep.AccessedItems)
	}
	if len(rep.ThrottledPartitionKeys) != 1 || len(rep.ThrottledItems) != 1 || rep.Status != Enabled || rep.Mode != ModeAll {
		t.Errorf("report: %+v", rep)
	}
	thr := &Setting{Enabled: true, Mode: ModeThrottled}
	c2 := r.Counter(ns, "t", "", thr, ks)
	c2.Consumed(now, key(s("z"), s("1")), 9)
	if rep := NewReport("t", "", thr, c2, now, 0, 0); rep.AccessedPartitionKeys != nil || len(rep.ThrottledPartitionKeys) != 1 {
		t.Errorf("mode change: %+v", rep)
	}
	r.Forget(ns, "t")
	if r.Counter(ns, "t", "", nil, ks) != nil || len(r.m) != 0 {
		t.Error("counter not forgotten")
	}
}

// TestCounterIndex: a GSI share counts its partition and, for an entry,
// its index key (without the table key that follows) as an item.
func TestCounterIndex(t *testing.T) {
	var r Registry
	ks := KeySchema{Partition: "g", Sort: "h", PartitionType: av.TypeS, SortType: av.TypeS}
	c := r.Counter(api.Namespace{}, "t", "ix", &Setting{Enabled: true}, ks)
	now := time.Unix(1000, 0)
	part := string(key(s("p")))
	c.IndexConsumed(now, part, append(key(s("p"), s("q")), av.AppendKey(nil, s("tablekey"))...), 1)
	c.IndexConsumed(now, "", nil, 1) // a Scan
	c.IndexThrottled(now, part, nil)
	rep := NewReport("t", "ix", &Setting{Enabled: true}, c, now, 0, 0)
	if len(rep.AccessedPartitionKeys) != 1 || len(rep.AccessedItems) != 1 || rep.AccessedItems[0].Key["h"].S != "q" || len(rep.ThrottledPartitionKeys) != 1 || len(rep.ThrottledItems) != 0 {
		t.Errorf("report: %+v", rep)
	}
}
