package insights

// Contributor Insights settings and the answers of
// UpdateContributorInsights, DescribeContributorInsights and
// ListContributorInsights
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContributorInsights.html).
// The setting is stored with the table's metadata (so it survives a
// restart); while it is on, the engine counts the most accessed and most
// throttled keys (count.go), which the service would deliver to CloudWatch
// and ExtendDB serves itself (Report).

import (
	"encoding/base64"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

// Contributor Insights statuses and modes.
const (
	Enabling  = "ENABLING"
	Enabled   = "ENABLED"
	Disabling = "DISABLING"
	Disabled  = "DISABLED"

	ModeAll       = "ACCESSED_AND_THROTTLED_KEYS"
	ModeThrottled = "THROTTLED_KEYS"
)

// Setting is the stored Contributor Insights setting of a table or GSI;
// nil is never enabled. Its JSON form is part of the table's stored
// metadata.
type Setting struct {
	Enabled bool   `json:"on,omitempty"`
	Mode    string `json:"mode,omitempty"`
	// At is when it was last updated: LastUpdateDateTime, and the epoch of
	// the rule names.
	At time.Time `json:"at"`
	// Until ends ENABLING or DISABLING (the transition delay); a restart
	// in between finds the same status from the same times.
	Until time.Time `json:"until,omitzero"`
}

// Status is the setting's ContributorInsightsStatus at now.
func (s *Setting) Status(now time.Time) string {
	switch {
	case s == nil:
		return Disabled
	case s.Enabled && now.Before(s.Until):
		return Enabling
	case s.Enabled:
		return Enabled
	case now.Before(s.Until):
		return Disabling
	}
	return Disabled
}

// Counting reports whether keys are being counted: from ENABLE until
// DISABLE, ENABLING included.
func (s *Setting) Counting() bool { return s != nil && s.Enabled }

// resourceMax keeps a rule name within its pattern's 128 characters:
// "DynamoDBContributorInsights-PKC-" + resource + "-" + 13 digits.
const resourceMax = 128 - len("DynamoDBContributorInsights-PKC-") - 1 - 13

// RuleNames returns the CloudWatch rule names of a setting made at at on
// table (the resource name of both a table's and its indexes' rules, as
// the service's examples show): partition keys, then partition and sort
// keys when the key has a sort key; accessed then throttled, accessed only
// in ACCESSED_AND_THROTTLED_KEYS mode.
func RuleNames(table string, at time.Time, mode string, sortKey bool) []string {
	if len(table) > resourceMax {
		table = table[:resourceMax]
	}
	suffix := "-" + table + "-" + strconv.FormatInt(at.UnixMilli(), 10)
	var kinds []string
	if mode != ModeThrottled {
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

// IndexNotFound is the answer for an IndexName that is no GSI of the table
// (an LSI included: Contributor Insights is for tables and GSIs).
func IndexNotFound(index, table string) error {
	return api.NewError(api.CodeResourceNotFound, "Requested resource not found: Index: %s not found for table: %s", index, table)
}

// Update returns the setting that an UpdateContributorInsights with action
// ("ENABLE" or "DISABLE") and mode (nil: the default) made at now puts in
// place of old; delay (> 0) is the transition to ENABLED or DISABLED. A
// DISABLE keeps the mode of old.
func Update(old *Setting, action string, mode *string, now time.Time, delay time.Duration) *Setting {
	enable := action == "ENABLE"
	st := &Setting{Enabled: enable, At: now}
	if delay > 0 {
		st.Until = now.Add(delay)
	}
	if old != nil {
		st.Mode = old.Mode
	}
	if enable {
		st.Mode = ModeAll
		if mode != nil {
			st.Mode = *mode
		}
	}
	return st
}

// UpdateOutput is UpdateContributorInsights' answer for table and index
// ("" for the table) once st, from Update, is stored.
func UpdateOutput(table, index string, st *Setting) *api.UpdateContributorInsightsOutput {
	out := &api.UpdateContributorInsightsOutput{TableName: table, IndexName: index, ContributorInsightsStatus: Disabling}
	if st.Enabled {
		out.ContributorInsightsStatus = Enabling
		out.ContributorInsightsMode = st.Mode
	}
	return out
}

// Describe is DescribeContributorInsights' answer at now for table and
// index ("" for the table) with setting st; sortKey tells whether the
// table's or index's key has a sort key.
func Describe(table, index string, st *Setting, sortKey bool, now time.Time) *api.DescribeContributorInsightsOutput {
	out := &api.DescribeContributorInsightsOutput{TableName: table, IndexName: index, ContributorInsightsStatus: st.Status(now)}
	if st == nil {
		return out
	}
	out.LastUpdateDateTime = api.EpochPtr(st.At)
	out.ContributorInsightsMode = st.Mode
	if st.Enabled {
		out.ContributorInsightsRuleList = RuleNames(table, st.At, st.Mode, sortKey)
	}
	return out
}

// ListPage is where a ListContributorInsights page starts and how long it
// is.
type ListPage struct {
	// Limit is the most entries of the page.
	Limit int
	// After is the position (NextToken) the page follows; "" for the first.
	After string
}

// ListPageOf reads the paging parameters of a ListContributorInsights
// request whose fields the engine has validated.
func ListPageOf(in *api.ListContributorInsightsInput) (ListPage, error) {
	p := ListPage{Limit: 100}
	if in.MaxResults != nil && *in.MaxResults > 0 {
		p.Limit = int(*in.MaxResults)
	}
	if in.NextToken != nil {
		b, err := base64.RawURLEncoding.DecodeString(*in.NextToken)
		if err != nil || len(b) == 0 {
			return ListPage{}, api.Validation("Invalid NextToken")
		}
		p.After = string(b)
	}
	return p, nil
}

// Summarize appends to all the ListContributorInsights entry of table and
// index ("" for the table) with setting st at now, unless it is DISABLED
// and disabledToo is false (a list of every table's shows only those that
// are not).
func Summarize(all []api.ContributorInsightsSummary, table, index string, st *Setting, now time.Time, disabledToo bool) []api.ContributorInsightsSummary {
	s := st.Status(now)
	if s == Disabled && !disabledToo {
		return all
	}
	sum := api.ContributorInsightsSummary{TableName: table, IndexName: index, ContributorInsightsStatus: s}
	if st != nil && st.Enabled {
		sum.ContributorInsightsMode = st.Mode
	}
	return append(all, sum)
}

// List is ListContributorInsights' answer: page p of all, which it sorts
// by table, the table before its indexes.
func List(all []api.ContributorInsightsSummary, p ListPage) *api.ListContributorInsightsOutput {
	sort.Slice(all, func(i, j int) bool { return listPos(all[i]) < listPos(all[j]) })
	start := 0
	if p.After != "" {
		start = sort.Search(len(all), func(i int) bool { return listPos(all[i]) > p.After })
	}
	end := min(start+p.Limit, len(all))
	out := &api.ListContributorInsightsOutput{ContributorInsightsSummaries: append([]api.ContributorInsightsSummary{}, all[start:end]...)}
	if end < len(all) {
		out.NextToken = base64.RawURLEncoding.EncodeToString([]byte(listPos(all[end-1])))
	}
	return out
}

// listPos is an entry's place in ListContributorInsights' order (and its
// NextToken): the table, then "" for itself before its indexes' names. A
// NUL separates them, as no name contains one.
func listPos(s api.ContributorInsightsSummary) string {
	return strings.Join([]string{s.TableName, s.IndexName}, "\x00")
}
