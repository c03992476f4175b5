package emulator

// Contributor Insights: UpdateContributorInsights, DescribeContributorInsights
// and ListContributorInsights, for tables and their global secondary
// indexes. The setting is stored with the table's metadata (so it survives
// a restart); while it is on, the engine counts the most accessed and most
// throttled keys (insights_count.go), which the service would deliver to
// CloudWatch and ExtendDB serves itself (ContributorInsightsTop).

import (
	"context"
	"encoding/base64"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Contributor Insights statuses and modes.
const (
	ciEnabling  = "ENABLING"
	ciEnabled   = "ENABLED"
	ciDisabling = "DISABLING"
	ciDisabled  = "DISABLED"

	ciModeAll       = "ACCESSED_AND_THROTTLED_KEYS"
	ciModeThrottled = "THROTTLED_KEYS"
)

// insightsState is the stored Contributor Insights setting of a table or
// GSI; nil is never enabled.
type insightsState struct {
	Enabled bool   `json:"on,omitempty"`
	Mode    string `json:"mode,omitempty"`
	// At is when it was last updated: LastUpdateDateTime, and the epoch of
	// the rule names.
	At time.Time `json:"at"`
	// Until ends ENABLING or DISABLING (the transition delay); a restart
	// in between finds the same status from the same times.
	Until time.Time `json:"until,omitzero"`
}

func (s *insightsState) status(now time.Time) string {
	switch {
	case s == nil:
		return ciDisabled
	case s.Enabled && now.Before(s.Until):
		return ciEnabling
	case s.Enabled:
		return ciEnabled
	case now.Before(s.Until):
		return ciDisabling
	}
	return ciDisabled
}

// counting reports whether keys are being counted: from ENABLE until
// DISABLE, ENABLING included.
func (s *insightsState) counting() bool { return s != nil && s.Enabled }

// ciResourceMax keeps a rule name within its pattern's 128 characters:
// "DynamoDBContributorInsights-PKC-" + resource + "-" + 13 digits.
const ciResourceMax = 128 - len("DynamoDBContributorInsights-PKC-") - 1 - 13

// ruleNames returns the CloudWatch rule names of a setting made at at on
// table (the resource name of both a table's and its indexes' rules, as
// the service's examples show): partition keys, then partition and sort
// keys when the key has a sort key; accessed then throttled, accessed only
// in ACCESSED_AND_THROTTLED_KEYS mode.
func ruleNames(table string, at time.Time, mode string, sortKey bool) []string {
	if len(table) > ciResourceMax {
		table = table[:ciResourceMax]
	}
	suffix := "-" + table + "-" + strconv.FormatInt(at.UnixMilli(), 10)
	var kinds []string
	if mode != ciModeThrottled {
		kinds = append(kinds, "PKC")
		if sortKey {
			kinds = append(kinds, "SKC")
		}
	}
	kinds = append(kinds, "PKT")
	if sortKey {
		kinds = append(kinds, "SKT")
	}
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = "DynamoDBContributorInsights-" + k + suffix
	}
	return out
}

// insightsTarget is a table, or one of its GSIs, that Contributor Insights
// is set on.
type insightsTarget struct {
	t  *tableMeta
	ix *indexMeta // nil for the table
}

func (g insightsTarget) state() *insightsState {
	if g.ix != nil {
		return g.ix.Insights
	}
	return g.t.Insights
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

// indexNotFound is the answer for an IndexName that is no GSI of the table
// (an LSI included: Contributor Insights is for tables and GSIs).
func indexNotFound(index, table string) error {
	return NewError(CodeResourceNotFound, "Requested resource not found: Index: %s not found for table: %s", index, table)
}

// insightsTargetOf finds the table or GSI of a request. The caller holds
// e.mu.
func (e *Engine) insightsTargetOf(ns Namespace, name string, index *string, now time.Time) (insightsTarget, error) {
	t := e.lookup(ns, name, now)
	if t == nil {
		return insightsTarget{}, TableNotFound(name)
	}
	g := insightsTarget{t: t}
	if index != nil {
		ix, ok := t.index(*index, now)
		if !ok || ix.Local {
			return insightsTarget{}, indexNotFound(*index, name)
		}
		g.ix = ix
	}
	return g, nil
}

// UpdateContributorInsights turns Contributor Insights on or off for a
// table or one of its GSIs.
func (e *Engine) UpdateContributorInsights(ctx context.Context, ns Namespace, in *UpdateContributorInsightsInput) (*UpdateContributorInsightsOutput, error) {
	if in == nil {
		in = &UpdateContributorInsightsInput{}
	}
	var v violations
	v.tableRef("tableName", in.TableName)
	v.name("indexName", in.IndexName, false)
	if in.ContributorInsightsAction == nil {
		v.null("contributorInsightsAction")
	}
	v.enum("contributorInsightsAction", in.ContributorInsightsAction, "ENABLE", "DISABLE")
	v.enum("contributorInsightsMode", in.ContributorInsightsMode, ciModeAll, ciModeThrottled)
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := checkBareName(*in.TableName); err != nil {
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
	enable := *in.ContributorInsightsAction == "ENABLE"
	st := &insightsState{Enabled: enable, At: now}
	if d := e.opts.TransitionDelay; d > 0 {
		st.Until = now.Add(d)
	}
	if old := g.state(); old != nil {
		st.Mode = old.Mode
	}
	if enable {
		st.Mode = ciModeAll
		if in.ContributorInsightsMode != nil {
			st.Mode = *in.ContributorInsightsMode
		}
	}
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
	out := &UpdateContributorInsightsOutput{TableName: name, IndexName: g.indexName(), ContributorInsightsStatus: ciDisabling}
	if enable {
		out.ContributorInsightsStatus = ciEnabling
		out.ContributorInsightsMode = st.Mode
	}
	return out, nil
}

// DescribeContributorInsights reports the Contributor Insights setting of
// a table or one of its GSIs.
func (e *Engine) DescribeContributorInsights(ctx context.Context, ns Namespace, in *DescribeContributorInsightsInput) (*DescribeContributorInsightsOutput, error) {
	if in == nil {
		in = &DescribeContributorInsightsInput{}
	}
	var v violations
	v.tableRef("tableName", in.TableName)
	v.name("indexName", in.IndexName, false)
	if err := v.err(); err != nil {
		return nil, err
	}
	if err := checkBareName(*in.TableName); err != nil {
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
	st := g.state()
	out := &DescribeContributorInsightsOutput{TableName: name, IndexName: g.indexName(), ContributorInsightsStatus: st.status(now)}
	if st == nil {
		return out, nil
	}
	out.LastUpdateDateTime = epochPtr(st.At)
	out.ContributorInsightsMode = st.Mode
	if st.Enabled {
		out.ContributorInsightsRuleList = ruleNames(name, st.At, st.Mode, g.sortKey())
	}
	return out, nil
}

// ListContributorInsights lists Contributor Insights settings: with a
// TableName, the table's and each of its GSIs' (DISABLED ones included);
// without, every table's and GSI's of the namespace that is not DISABLED.
// Entries come sorted by table, the table before its indexes.
func (e *Engine) ListContributorInsights(ctx context.Context, ns Namespace, in *ListContributorInsightsInput) (*ListContributorInsightsOutput, error) {
	if in == nil {
		in = &ListContributorInsightsInput{}
	}
	var v violations
	if in.TableName != nil {
		v.tableRef("tableName", in.TableName)
	}
	v.max("maxResults", in.MaxResults, 100)
	if err := v.err(); err != nil {
		return nil, err
	}
	limit := 100
	if in.MaxResults != nil && *in.MaxResults > 0 {
		limit = int(*in.MaxResults)
	}
	after := ""
	if in.NextToken != nil {
		b, err := base64.RawURLEncoding.DecodeString(*in.NextToken)
		if err != nil || len(b) == 0 {
			return nil, Validation("Invalid NextToken")
		}
		after = string(b)
	}
	now := e.now()
	var all []ContributorInsightsSummary
	add := func(g insightsTarget, all *[]ContributorInsightsSummary, disabledToo bool) {
		st := g.state()
		s := st.status(now)
		if s == ciDisabled && !disabledToo {
			return
		}
		sum := ContributorInsightsSummary{TableName: g.t.Name, IndexName: g.indexName(), ContributorInsightsStatus: s}
		if st != nil && st.Enabled {
			sum.ContributorInsightsMode = st.Mode
		}
		*all = append(*all, sum)
	}
	e.rlockCatalog()
	if in.TableName != nil {
		if err := checkBareName(*in.TableName); err != nil {
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
			return nil, TableNotFound(name)
		}
		add(insightsTarget{t: t}, &all, true)
		for _, ix := range t.liveGSIs(now) {
			add(insightsTarget{t: t, ix: ix}, &all, true)
		}
	} else {
		for _, t := range e.tables[ns] {
			if t.gone(now) {
				continue
			}
			add(insightsTarget{t: t}, &all, false)
			for _, ix := range t.liveGSIs(now) {
				add(insightsTarget{t: t, ix: ix}, &all, false)
			}
		}
	}
	e.mu.RUnlock()
	sort.Slice(all, func(i, j int) bool { return ciPos(all[i]) < ciPos(all[j]) })
	start := 0
	if after != "" {
		start = sort.Search(len(all), func(i int) bool { return ciPos(all[i]) > after })
	}
	end := min(start+limit, len(all))
	out := &ListContributorInsightsOutput{ContributorInsightsSummaries: append([]ContributorInsightsSummary{}, all[start:end]...)}
	if end < len(all) {
		out.NextToken = base64.RawURLEncoding.EncodeToString([]byte(ciPos(all[end-1])))
	}
	return out, nil
}

// ciPos is an entry's place in ListContributorInsights' order (and its
// NextToken): the table, then "" for itself before its indexes' names. A
// NUL separates them, as no name contains one.
func ciPos(s ContributorInsightsSummary) string {
	return strings.Join([]string{s.TableName, s.IndexName}, "\x00")
}
