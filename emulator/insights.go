package emulator

// Contributor Insights: UpdateContributorInsights, DescribeContributorInsights
// and ListContributorInsights, for tables and their global secondary
// indexes, and the counting of their most accessed and most throttled keys
// (ContributorInsightsTop). The capability is emulator/internal/insights:
// the setting (stored with the table's metadata, in tableInsights and each
// GSI's indexMeta), the operations' answers and the counters. This file is
// the engine's side: it validates requests, finds the table or index under
// the catalog lock, stores the new setting, and hangs each table's and
// GSI's Counter on its cached metadata (insightsCached), which the
// throttle wiring (throttle_engine.go) feeds.

import (
	"context"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/insights"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// InsightsOptions sizes the Contributor Insights counters; zero fields
// take hotkeys' defaults (100 keys per one-minute bucket, 60 buckets).
type InsightsOptions = insights.Options

// ContributorKey is one key of a Contributor Insights list: the key's
// attributes, and its count (capacity units for the accessed lists,
// refusals for the throttled ones) with the sketch's error bound (the true
// count lies in [Count-Error, Count]).
type ContributorKey = insights.Key

// ContributorInsightsReport is the top keys of a table or GSI: what the
// service's rules would chart in CloudWatch (ContributorInsightsTop).
type ContributorInsightsReport = insights.Report

// insightsTarget is a table, or one of its GSIs, that Contributor Insights
// is set on.
type insightsTarget struct {
	t  *tableMeta
	ix *indexMeta // nil for the table
}

func (g insightsTarget) setting() *insights.Setting {
	if g.ix != nil {
		return g.ix.Insights
	}
	return g.t.Insights
}

func (g insightsTarget) counter() *insights.Counter {
	if g.ix != nil {
		return g.ix.ci
	}
	return g.t.ci
}

func (g insightsTarget) sortKey() bool {
	if g.ix != nil {
		return len(g.ix.KeySchema) > 1
	}
	_, ok := g.t.rangeKey()
	return ok
}

func (g insightsTarget) indexName() string {
	if g.ix != nil {
		return g.ix.Name
	}
	return ""
}

// insightsTargetOf finds the table or GSI of a request. The caller holds
// e.mu.
func (e *Engine) insightsTargetOf(ns api.Namespace, name string, index *string, now time.Time) (insightsTarget, error) {
	t := e.lookup(ns, name, now)
	if t == nil {
		return insightsTarget{}, api.TableNotFound(name)
	}
	g := insightsTarget{t: t}
	if index != nil {
		ix, ok := t.index(*index, now)
		if !ok || ix.Local {
			return insightsTarget{}, insights.IndexNotFound(*index, name)
		}
		g.ix = ix
	}
	return g, nil
}

// UpdateContributorInsights turns Contributor Insights on or off for a
// table or one of its GSIs.
func (e *Engine) UpdateContributorInsights(ctx context.Context, ns api.Namespace, in *api.UpdateContributorInsightsInput) (*api.UpdateContributorInsightsOutput, error) {
	if in == nil {
		in = &api.UpdateContributorInsightsInput{}
	}
	var v shape.Violations
	v.TableRef("tableName", in.TableName)
	v.Name("indexName", in.IndexName, false)
	if in.ContributorInsightsAction == nil {
		v.Null("contributorInsightsAction")
	}
	v.Enum("contributorInsightsAction", in.ContributorInsightsAction, "ENABLE", "DISABLE")
	v.Enum("contributorInsightsMode", in.ContributorInsightsMode, insights.ModeAll, insights.ModeThrottled)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := shape.CheckBareName(*in.TableName); err != nil {
		return nil, err
	}
	tns, name, err := resolveName(ns, *in.TableName)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.lockCatalog()
	defer e.unlockCatalog()
	g, err := e.insightsTargetOf(tns, name, in.IndexName, now)
	if err != nil {
		return nil, err
	}
	if s := g.t.status(now); s == statusCreating || s == statusDeleting {
		return nil, inUse(g.t, s)
	}
	st := insights.Update(g.setting(), *in.ContributorInsightsAction, in.ContributorInsightsMode, now, e.opts.TransitionDelay)
	nt := g.t.clone()
	if g.ix == nil {
		nt.Insights = st
	} else {
		for _, ix := range nt.GSIs {
			if ix.Name == g.ix.Name && !ix.gone(now) {
				ix.Insights = st
			}
		}
	}
	if err := e.saveTable(nt); err != nil {
		return nil, internalError(err)
	}
	return insights.UpdateOutput(name, g.indexName(), st), nil
}

// DescribeContributorInsights reports the Contributor Insights setting of
// a table or one of its GSIs.
func (e *Engine) DescribeContributorInsights(ctx context.Context, ns api.Namespace, in *api.DescribeContributorInsightsInput) (*api.DescribeContributorInsightsOutput, error) {
	if in == nil {
		in = &api.DescribeContributorInsightsInput{}
	}
	var v shape.Violations
	v.TableRef("tableName", in.TableName)
	v.Name("indexName", in.IndexName, false)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := shape.CheckBareName(*in.TableName); err != nil {
		return nil, err
	}
	tns, name, err := resolveName(ns, *in.TableName)
	if err != nil {
		return nil, err
	}
	now := e.now()
	e.rlockCatalog()
	defer e.mu.RUnlock()
	g, err := e.insightsTargetOf(tns, name, in.IndexName, now)
	if err != nil {
		return nil, err
	}
	return insights.Describe(name, g.indexName(), g.setting(), g.sortKey(), now), nil
}

// ListContributorInsights lists Contributor Insights settings: with a
// TableName, the table's and each of its GSIs' (DISABLED ones included);
// without, every table's and GSI's of the namespace that is not DISABLED.
// Entries come sorted by table, the table before its indexes.
func (e *Engine) ListContributorInsights(ctx context.Context, ns api.Namespace, in *api.ListContributorInsightsInput) (*api.ListContributorInsightsOutput, error) {
	if in == nil {
		in = &api.ListContributorInsightsInput{}
	}
	var v shape.Violations
	if in.TableName != nil {
		v.TableRef("tableName", in.TableName)
	}
	v.Max("maxResults", in.MaxResults, 100)
	if err := v.Err(); err != nil {
		return nil, err
	}
	page, err := insights.ListPageOf(in)
	if err != nil {
		return nil, err
	}
	now := e.now()
	var all []api.ContributorInsightsSummary
	add := func(t *tableMeta, disabledToo bool) {
		all = insights.Summarize(all, t.Name, "", t.Insights, now, disabledToo)
		for _, ix := range t.liveGSIs(now) {
			all = insights.Summarize(all, t.Name, ix.Name, ix.Insights, now, disabledToo)
		}
	}
	e.rlockCatalog()
	if in.TableName != nil {
		if err := shape.CheckBareName(*in.TableName); err != nil {
			e.mu.RUnlock()
			return nil, err
		}
		tns, name, err := resolveName(ns, *in.TableName)
		if err != nil {
			e.mu.RUnlock()
			return nil, err
		}
		t := e.lookup(tns, name, now)
		if t == nil {
			e.mu.RUnlock()
			return nil, api.TableNotFound(name)
		}
		add(t, true)
	} else {
		for _, t := range e.tables[ns] {
			if t.gone(now) {
				continue
			}
			add(t, false)
		}
	}
	e.mu.RUnlock()
	return insights.List(all, page), nil
}

// insightsKeys is the key schema ks as the counters know it.
func insightsKeys(ks []keyElem) insights.KeySchema {
	k := insights.KeySchema{Partition: ks[0].Name, PartitionType: avType(ks[0].Type)}
	if len(ks) > 1 {
		k.Sort, k.SortType = ks[1].Name, avType(ks[1].Type)
	}
	return k
}

// insightsCached hangs counters on t and its GSIs as t is being cached
// (cacheTable): nil where the setting is off.
func (e *Engine) insightsCached(t *tableMeta) {
	ns := t.ns()
	var st *insights.Setting
	if !t.Deleting {
		st = t.Insights
	}
	t.ci = e.ci.Counter(ns, t.Name, "", st, insightsKeys(t.KeySchema))
	for _, ix := range t.GSIs {
		var ist *insights.Setting
		if !ix.Deleted && !t.Deleting {
			ist = ix.Insights
		}
		ix.ci = e.ci.Counter(ns, t.Name, ix.Name, ist, insightsKeys(ix.KeySchema))
	}
}

// itemKeyBytes returns the hashed and encoded key of an item storage key
// (or a Query's partition prefix): what follows the family byte and table
// ID, as a Counter counts it. nil for anything else (a Scan, an index key).
func itemKeyBytes(key []byte) []byte {
	const head = 1 + len(keyspace.TableID{})
	if len(key) <= head+4 || key[0] != keyspace.FamItem {
		return nil
	}
	return key[head:]
}

// indexKeyBytes returns the hashed and encoded key of an index entry's
// storage key (index key, then the table key): what follows the family
// byte, table ID and index ID, as a Counter counts it. nil for anything
// else.
func indexKeyBytes(entry []byte) []byte {
	const head = 1 + len(keyspace.TableID{}) + 4 // family byte, table ID, index ID
	if len(entry) <= head+4 || entry[0] != keyspace.FamIndex {
		return nil
	}
	return entry[head:]
}

// ContributorInsightsTop returns the n heaviest keys (n ≤ 0: all counted)
// of each list of table (a name or ARN) or its GSI index ("" for the
// table) over the last span (≤ 0: the whole window). Lists are empty while
// the setting is off; ResourceNotFoundException names an unknown table or
// index.
func (e *Engine) ContributorInsightsTop(ctx context.Context, ns api.Namespace, table, index string, n int, span time.Duration) (*ContributorInsightsReport, error) {
	tns, name, err := resolveName(ns, table)
	if err != nil {
		return nil, err
	}
	now := e.now()
	var ip *string
	if index != "" {
		ip = &index
	}
	e.rlockCatalog()
	if e.lookup(tns, name, now) == nil {
		e.mu.RUnlock()
		// Not DynamoDB's message: this is ExtendDB's own endpoint, and the
		// namespace is the likeliest mistake.
		return nil, api.NewError(api.CodeResourceNotFound, "Requested resource not found: Table: %s not found in account %s, Region %s", name, tns.Account, tns.Region)
	}
	g, err := e.insightsTargetOf(tns, name, ip, now)
	var c *insights.Counter
	if err == nil {
		c = g.counter()
	}
	e.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	return insights.NewReport(name, index, g.setting(), c, now, n, span), nil
}
