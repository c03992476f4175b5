package console

import (
	"context"
	"errors"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
)

func ptr[T any](v T) *T { return &v }

// start reads a page's page-start parameter (checked: a parameter anyone
// can edit) into the engine's ExclusiveStartKey.
func start(r *http.Request) (av.Item, error) {
	s := r.URL.Query().Get("start")
	if s == "" {
		return nil, nil
	}
	return parseItem(s)
}

// tableRow is one line of the table list.
type tableRow struct {
	Name, Status, Billing string
	Items, Bytes          int64
}

func (c *console) home(w http.ResponseWriter, r *http.Request) {
	ns, all, err := c.namespace(r)
	p := page{Title: "Tables", NS: ns, Namespaces: all, Data: homeData{}}
	if err != nil {
		p.Error = err.Error()
		c.render(w, r, http.StatusBadRequest, "home", p)
		return
	}
	ctx := r.Context()
	if err := c.opts.Engine.Authorize(ctx, ns, actionListTables, "", ""); err != nil {
		p.Error = errorText(err)
		c.render(w, r, statusOf(err), "home", p)
		return
	}
	var rows []tableRow
	names, _ := c.opts.Engine.TableNames(ctx, ns) // a failed page shows the tables listed before it
	for _, name := range names {
		if c.opts.Engine.Authorize(ctx, ns, actionDescribeTable, name, "") != nil {
			rows = append(rows, tableRow{Name: name}) // listed, not described
			continue
		}
		d, err := c.opts.Engine.DescribeTable(ctx, ns, &api.DescribeTableInput{TableName: &name})
		if err != nil || d.Table == nil {
			continue // deleted since the listing
		}
		rows = append(rows, tableRow{Name: name, Status: d.Table.TableStatus, Billing: billingMode(d.Table),
			Items: d.Table.ItemCount, Bytes: d.Table.TableSizeBytes})
	}
	p.Data = homeData{Tables: rows, Bulk: c.bulkRows(ctx, ns)}
	c.render(w, r, http.StatusOK, "home", p)
}

// homeData is the home page's: the tables and the bulk operations.
type homeData struct {
	Tables []tableRow
	Bulk   []bulkRow
}

// bulkRow is one bulk operation of the home page, with its progress.
type bulkRow struct {
	ID, Table, Status, Failure string
	Processed, Failed          int64
	ReadBytes, TotalBytes      int64
}

// bulkRows lists the newest 25 bulk operations the caller may list, each
// with its progress where the caller may describe it.
func (c *console) bulkRows(ctx context.Context, ns api.Namespace) []bulkRow {
	if c.opts.Engine.Authorize(ctx, ns, actionListBulkOperations, "", "") != nil {
		return nil
	}
	out, err := c.opts.Engine.ListBulkOperations(ctx, ns, &api.ListBulkOperationsInput{MaxResults: ref(int64(25))})
	if err != nil {
		return nil
	}
	var rows []bulkRow
	for _, s := range out.BulkOperationsSummaryList {
		arn := *s.BulkOperationArn
		tableArn, id, _ := strings.Cut(arn, "/bulk-operation/")
		row := bulkRow{ID: id, Table: tableArn[strings.LastIndex(tableArn, "/")+1:], Status: s.BulkOperationStatus}
		if c.opts.Engine.Authorize(ctx, ns, actionDescribeBulkOperation, tableArn, "") == nil {
			if d, err := c.opts.Engine.DescribeBulkOperation(ctx, ns, &api.DescribeBulkOperationInput{BulkOperationArn: &arn}); err == nil {
				bd := d.BulkOperationDescription
				row.Status, row.Processed, row.Failed = bd.BulkOperationStatus, bd.ProcessedItemCount, bd.FailedItemCount
				if bd.ProcessedInputBytes != nil {
					row.ReadBytes = *bd.ProcessedInputBytes
				}
				if bd.TotalInputBytes != nil {
					row.TotalBytes = *bd.TotalInputBytes
				}
				if bd.FailureCode != nil {
					row.Failure = *bd.FailureCode
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func ref[T any](v T) *T { return &v }

func billingMode(t *api.TableDescription) string {
	if t.BillingModeSummary != nil && t.BillingModeSummary.BillingMode != "" {
		return t.BillingModeSummary.BillingMode
	}
	return "PROVISIONED"
}

// tableCtx is a table page's common part: the namespace and description.
type tableCtx struct {
	page
	desc *api.TableDescription
}

// openTable resolves the ns and t parameters and authorizes the page's
// IAM action on the table (index: one of its indexes) for the signed-in
// principal; on failure it has rendered the error page (403 and the
// API's AccessDeniedException text when refused) and returns ok false.
func (c *console) openTable(w http.ResponseWriter, r *http.Request, tmpl, title, action, index string) (tableCtx, bool) {
	ns, all, err := c.namespace(r)
	tc := tableCtx{page: page{Title: title, NS: ns, Namespaces: all, Table: r.URL.Query().Get("t")}}
	if err == nil {
		err = c.opts.Engine.Authorize(r.Context(), ns, action, tc.Table, index)
	}
	if err == nil {
		var d *api.DescribeTableOutput
		d, err = c.opts.Engine.DescribeTable(r.Context(), ns, &api.DescribeTableInput{TableName: &tc.Table})
		if err == nil {
			tc.desc = d.Table
			tc.Vectors = len(d.Table.VectorIndexes) > 0
			return tc, true
		}
	}
	tc.Error = errorText(err)
	c.render(w, r, statusOf(err), tmpl, tc.page)
	return tc, false
}

// tableView is the description page's data.
type tableView struct {
	D     *api.TableDescription
	Attrs map[string]string
	TTL   *api.TimeToLiveDescription
	PITR  string
	Tags  []api.DescribedTag
	// Capacity and Balance of the throttle buckets now, if the principal
	// may see them (ThrottleShown).
	Throttle      emulator.ThrottleStatus
	ThrottleShown bool
	// Vectors are the table's vector indexes.
	Vectors []vectorRow
}

// Bucket says what the read (or write) bucket holds in a user's terms:
// its refill rate in RCU or WCU per second (an on-demand table's is its
// ceiling), its burst, and what it holds now or owes.
func (v tableView) Bucket(read bool) string {
	rate, bal, ceiling, unit := v.Throttle.WriteCapacity, v.Throttle.WriteBalance, v.Throttle.WriteCeiling, "WCU"
	if read {
		rate, bal, ceiling, unit = v.Throttle.ReadCapacity, v.Throttle.ReadBalance, v.Throttle.ReadCeiling, "RCU"
	}
	now := grouped(bal) + " banked"
	if bal < 0 {
		now = "in debt by " + grouped(-bal) + ": refused until refill repays it"
	}
	if d := v.D; d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode == "PAY_PER_REQUEST" {
		return "on demand: " + grouped(rate) + " " + unit + "/s ceiling, " + grouped(ceiling) + " burst; " + now
	}
	return grouped(rate) + " " + unit + "/s, " + grouped(ceiling) + " burst; " + now
}

// grouped writes units with thousands separators, to one decimal below
// 100 (a bucket refilling from empty), whole above.
func grouped(units float64) string {
	if units < 100 && units != math.Trunc(units) {
		return strconv.FormatFloat(units, 'f', 1, 64)
	}
	digits := strconv.FormatFloat(math.Round(units), 'f', 0, 64)
	var b strings.Builder
	for i, ch := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

func (c *console) table(w http.ResponseWriter, r *http.Request) {
	tc, ok := c.openTable(w, r, "table", "Table", actionDescribeTable, "")
	if !ok {
		return
	}
	ctx, eng, ns := r.Context(), c.opts.Engine, tc.NS
	v := tableView{D: tc.desc, Attrs: map[string]string{}, Vectors: vectorRows(tc.desc)}
	for _, a := range tc.desc.AttributeDefinitions {
		v.Attrs[a.AttributeName] = a.AttributeType
	}
	// Each part needs its own action; a part refused is left out.
	allowed := func(action string) bool { return eng.Authorize(ctx, ns, action, tc.Table, "") == nil }
	if allowed(actionDescribeTimeToLive) {
		if ttl, err := eng.DescribeTimeToLive(ctx, ns, &api.DescribeTimeToLiveInput{TableName: &tc.Table}); err == nil {
			v.TTL = ttl.TimeToLiveDescription
		}
	}
	if allowed(actionDescribeContinuousBackups) {
		if cb, err := eng.DescribeContinuousBackups(ctx, ns, &api.DescribeContinuousBackupsInput{TableName: &tc.Table}); err == nil &&
			cb.ContinuousBackupsDescription != nil && cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription != nil {
			v.PITR = cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus
		}
	}
	var next *string
	for allowed(actionListTagsOfResource) {
		tags, err := eng.ListTagsOfResource(ctx, ns, &api.ListTagsOfResourceInput{ResourceArn: &tc.desc.TableArn, NextToken: next})
		if err != nil {
			break
		}
		v.Tags = append(v.Tags, tags.Tags...)
		if tags.NextToken == "" {
			break
		}
		next = ptr(tags.NextToken)
	}
	if allowed(ActionThrottle) {
		v.Throttle, _ = eng.TableThrottleStatus(ns, tc.Table)
		v.ThrottleShown = true
	}
	tc.Data = v
	c.render(w, r, http.StatusOK, "table", tc.page)
}

// keyNames returns the partition and sort key of the table or of index.
func keyNames(d *api.TableDescription, index string) (pk, sk string, ok bool) {
	ks := d.KeySchema
	if index != "" {
		ks = nil
		for _, g := range d.GlobalSecondaryIndexes {
			if g.IndexName == index {
				ks = g.KeySchema
			}
		}
		for _, l := range d.LocalSecondaryIndexes {
			if l.IndexName == index {
				ks = l.KeySchema
			}
		}
		if ks == nil {
			return "", "", false
		}
	}
	for _, k := range ks {
		if k.KeyType == "HASH" {
			pk = k.AttributeName
		} else {
			sk = k.AttributeName
		}
	}
	return pk, sk, true
}

func indexNames(d *api.TableDescription) []string {
	var out []string
	for _, g := range d.GlobalSecondaryIndexes {
		out = append(out, g.IndexName)
	}
	for _, l := range d.LocalSecondaryIndexes {
		out = append(out, l.IndexName)
	}
	return out
}

// itemRow is one item of a Scan or Query page.
type itemRow struct {
	Key  string // compact DynamoDB JSON of the table key, for the link
	Cols []string
	Rest string
}

// itemsView is the Scan and Query pages' data.
type itemsView struct {
	Index   string
	Indexes []string
	Columns []string
	Rows    []itemRow
	// Next is the URL of the next page, "" on the last.
	Next         template.URL
	Count        int64
	ScannedCount int64
	Form         url.Values
	Ran          bool
	// Keys are the key attributes of the table (Name "") and of each
	// index, for the query form's choice; PK and SK label its inputs with
	// those of the table or index queried (Columns are the results').
	Keys   []keyChoice
	PK, SK string
}

// keyChoice is the partition and sort key of the table or one index.
type keyChoice struct{ Name, PK, SK string }

// rows turns items into rows: the table's and index's key attributes as
// columns, the rest as one line of plain JSON.
func rows(d *api.TableDescription, index string, items []av.Item) ([]string, []itemRow) {
	tpk, tsk, _ := keyNames(d, "")
	cols := []string{tpk}
	if tsk != "" {
		cols = append(cols, tsk)
	}
	if index != "" {
		ipk, isk, _ := keyNames(d, index)
		for _, k := range []string{ipk, isk} {
			if k != "" && k != tpk && k != tsk {
				cols = append(cols, k)
			}
		}
	}
	out := make([]itemRow, 0, len(items))
	for _, it := range items {
		row := itemRow{}
		key := av.Item{}
		rest := av.Item{}
		for k, v := range it {
			rest[k] = v
		}
		for i, col := range cols {
			v, ok := it[col]
			if ok {
				row.Cols = append(row.Cols, valueText(v))
				if i < 2 && (col == tpk || col == tsk) {
					key[col] = v
				}
			} else {
				row.Cols = append(row.Cols, "")
			}
			delete(rest, col)
		}
		row.Key = compactJSON(key)
		row.Rest = strings.Join(strings.Fields(plainJSON(rest)), " ")
		if len(row.Rest) > 200 {
			row.Rest = row.Rest[:200] + "…"
		}
		out = append(out, row)
	}
	return cols, out
}

func (c *console) items(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	tc, ok := c.openTable(w, r, "items", "Items", actionScan, q.Get("index"))
	if !ok {
		return
	}
	v := itemsView{Index: q.Get("index"), Indexes: indexNames(tc.desc)}
	tc.Data = &v
	in := &api.ScanInput{TableName: &tc.Table, Limit: ptr(int64(c.opts.PageSize))}
	if v.Index != "" {
		in.IndexName = ptr(v.Index)
	}
	var err error
	if in.ExclusiveStartKey, err = start(r); err == nil {
		var out *api.ReadManyOutput
		if out, err = c.opts.Engine.Scan(r.Context(), tc.NS, in); err == nil {
			c.fillItems(&v, "/items", tc.desc, out, q)
			c.render(w, r, http.StatusOK, "items", tc.page)
			return
		}
	}
	tc.Error = errorText(err)
	c.render(w, r, statusOf(err), "items", tc.page)
}

func (c *console) fillItems(v *itemsView, path string, d *api.TableDescription, out *api.ReadManyOutput, q url.Values) {
	v.Columns, v.Rows = rows(d, v.Index, out.Items)
	v.Count, v.ScannedCount, v.Ran = out.Count, out.ScannedCount, true
	if out.LastEvaluatedKey != nil {
		next := url.Values{}
		for k, vs := range q {
			next[k] = vs
		}
		next.Set("start", compactJSON(out.LastEvaluatedKey))
		// Built here from escaped parts, so the template may trust it.
		v.Next = template.URL(Prefix + path + "?" + next.Encode())
	}
}

// sortOps are the sort-key conditions the Query form offers.
var sortOps = map[string]string{"=": "=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "begins_with": "", "between": ""}

// attrValue types s as the key attribute name's definition says.
func attrValue(d *api.TableDescription, name, s string) av.Value {
	for _, a := range d.AttributeDefinitions {
		if a.AttributeName == name {
			t := av.TypeByName(a.AttributeType)
			if t == av.TypeB {
				return av.Value{Type: t, S: s}
			}
			return av.Value{Type: t, S: s}
		}
	}
	return av.Value{Type: av.TypeS, S: s}
}

func (c *console) query(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	tc, ok := c.openTable(w, r, "query", "Query", actionQuery, q.Get("index"))
	if !ok {
		return
	}
	v := itemsView{Index: q.Get("index"), Indexes: indexNames(tc.desc), Form: q}
	tc.Data = &v
	pk, sk, found := keyNames(tc.desc, v.Index)
	v.PK, v.SK = pk, sk
	for _, name := range append([]string{""}, v.Indexes...) {
		kp, ks, _ := keyNames(tc.desc, name)
		v.Keys = append(v.Keys, keyChoice{Name: name, PK: kp, SK: ks})
	}
	if !q.Has("pk") {
		c.render(w, r, http.StatusOK, "query", tc.page)
		return
	}
	err := func() error {
		if !found {
			return errors.New("no index " + v.Index + " on table " + tc.Table)
		}
		in := &api.QueryInput{TableName: &tc.Table, Limit: ptr(int64(c.opts.PageSize)),
			ExpressionAttributeNames:  map[string]string{"#pk": pk},
			ExpressionAttributeValues: map[string]av.Value{":pk": attrValue(tc.desc, pk, q.Get("pk"))}}
		if v.Index != "" {
			in.IndexName = ptr(v.Index)
		}
		cond := "#pk = :pk"
		if op := q.Get("op"); op != "" && sk != "" {
			sym, known := sortOps[op]
			if !known {
				return errors.New("unknown sort key condition " + op)
			}
			in.ExpressionAttributeNames["#sk"] = sk
			in.ExpressionAttributeValues[":sk"] = attrValue(tc.desc, sk, q.Get("sk"))
			switch op {
			case "begins_with":
				cond += " AND begins_with(#sk, :sk)"
			case "between":
				in.ExpressionAttributeValues[":sk2"] = attrValue(tc.desc, sk, q.Get("sk2"))
				cond += " AND #sk BETWEEN :sk AND :sk2"
			default:
				cond += " AND #sk " + sym + " :sk"
			}
		}
		in.KeyConditionExpression = &cond
		if f := strings.TrimSpace(q.Get("filter")); f != "" {
			in.FilterExpression = &f
			if vals := strings.TrimSpace(q.Get("values")); vals != "" {
				extra, err := parseItem(vals)
				if err != nil {
					return errors.New("filter values: " + err.Error())
				}
				for k, x := range extra {
					in.ExpressionAttributeValues[k] = x
				}
			}
		}
		if q.Get("order") == "desc" {
			in.ScanIndexForward = ptr(false)
		}
		var err error
		if in.ExclusiveStartKey, err = start(r); err != nil {
			return err
		}
		out, err := c.opts.Engine.Query(r.Context(), tc.NS, in)
		if err != nil {
			return err
		}
		c.fillItems(&v, "/query", tc.desc, out, q)
		return nil
	}()
	if err != nil {
		tc.Error = errorText(err)
		c.render(w, r, statusOf(err), "query", tc.page)
		return
	}
	c.render(w, r, http.StatusOK, "query", tc.page)
}

// itemView is the item page's data.
type itemView struct {
	Key      string
	Dynamo   string
	Plain    string
	Seen     string
	Edit     string
	Creating bool
	Exists   bool
}

func (c *console) item(w http.ResponseWriter, r *http.Request) {
	tc, ok := c.openTable(w, r, "item", "Item", actionGetItem, "")
	if !ok {
		return
	}
	key, err := parseItem(r.URL.Query().Get("key"))
	if err == nil {
		var out *api.GetItemOutput
		out, err = c.opts.Engine.GetItem(r.Context(), tc.NS, &api.GetItemInput{TableName: &tc.Table, Key: key, ConsistentRead: ptr(true)})
		if err == nil {
			v := &itemView{Key: compactJSON(key)}
			if out.Item != nil {
				v.Exists = true
				v.Dynamo, v.Plain, v.Seen, v.Edit = dynamoJSON(out.Item), plainJSON(out.Item), compactJSON(out.Item), dynamoJSON(out.Item)
			} else {
				tc.Error = "No item with key " + compactJSON(key) + " (deleted?)"
			}
			tc.Data = v
			c.render(w, r, http.StatusOK, "item", tc.page)
			return
		}
	}
	tc.Error = errorText(err)
	c.render(w, r, statusOf(err), "item", tc.page)
}

func (c *console) newItem(w http.ResponseWriter, r *http.Request) {
	tc, ok := c.openTable(w, r, "item", "New item", actionPutItem, "")
	if !ok {
		return
	}
	pk, sk, _ := keyNames(tc.desc, "")
	tmpl := av.Item{pk: attrValue(tc.desc, pk, "")}
	if sk != "" {
		tmpl[sk] = attrValue(tc.desc, sk, "")
	}
	tc.Data = &itemView{Creating: true, Edit: dynamoJSON(tmpl)}
	c.render(w, r, http.StatusOK, "item", tc.page)
}

// errStale is a write refused because the item changed since it was seen.
var errStale = errors.New("the item was changed (or deleted) since you opened it; nothing was written. Reload to see the current version")

// writeItem creates, saves or deletes an item. A save or delete is
// conditional on the item still being the version the page showed (Seen):
// a concurrent change is reported, never overwritten.
func (c *console) writeItem(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	tc, ok := c.openTableForm(w, r)
	if !ok {
		return
	}
	f := r.PostForm
	action := f.Get("action")
	v := &itemView{Edit: f.Get("item"), Seen: f.Get("seen"), Creating: action == "create", Exists: action != "create"}
	tc.Data = v
	redirect, err := c.doWrite(r.Context(), tc, action, f.Get("item"), f.Get("seen"))
	if err != nil {
		tc.Error = errorText(err)
		status := statusOf(err)
		if errors.Is(err, errStale) {
			status = http.StatusConflict
		}
		c.render(w, r, status, "item", tc.page)
		return
	}
	http.Redirect(w, r, redirect, http.StatusSeeOther)
}

// openTableForm is openTable for a POST: ns and t come from the form.
func (c *console) openTableForm(w http.ResponseWriter, r *http.Request) (tableCtx, bool) {
	q := r.URL.Query()
	q.Set("ns", r.PostForm.Get("ns"))
	q.Set("t", r.PostForm.Get("t"))
	r.URL.RawQuery = q.Encode()
	action := actionPutItem
	if r.PostForm.Get("action") == "delete" {
		action = actionDeleteItem
	}
	return c.openTable(w, r, "item", "Item", action, "")
}

func (c *console) doWrite(ctx context.Context, tc tableCtx, action, itemJSON, seenJSON string) (string, error) {
	eng, ns, table := c.opts.Engine, tc.NS, tc.Table
	pk, sk, _ := keyNames(tc.desc, "")
	keyOf := func(it av.Item) av.Item {
		k := av.Item{}
		for _, n := range []string{pk, sk} {
			if v, ok := it[n]; ok && n != "" {
				k[n] = v
			}
		}
		return k
	}
	back := Prefix + "/items?" + url.Values{"ns": {nsParam(ns)}, "t": {table}}.Encode()
	itemURL := func(key av.Item) string {
		return Prefix + "/item?" + url.Values{"ns": {nsParam(ns)}, "t": {table}, "key": {compactJSON(key)}}.Encode()
	}
	switch action {
	case "create":
		it, err := parseItem(itemJSON)
		if err != nil {
			return "", err
		}
		_, err = eng.PutItem(ctx, ns, &api.PutItemInput{TableName: &table, Item: it,
			ConditionExpression:      ptr("attribute_not_exists(#pk)"),
			ExpressionAttributeNames: map[string]string{"#pk": pk}})
		if isConditionFailed(err) {
			return "", errors.New("an item with this key already exists; nothing was written")
		}
		return itemURL(keyOf(it)), err
	case "save", "delete":
		seen, err := parseItem(seenJSON)
		if err != nil {
			return "", errors.New("the version you saw is missing or unreadable: " + err.Error())
		}
		var it av.Item
		if action == "save" {
			if it, err = parseItem(itemJSON); err != nil {
				return "", err
			}
			if !av.EqualItems(keyOf(it), keyOf(seen)) {
				return "", errors.New("the key cannot be changed by an edit; create a new item instead. Nothing was written")
			}
		}
		// Read and compare first: it catches attributes added since, which
		// the condition (on the attributes seen) cannot name.
		cur, err := eng.GetItem(ctx, ns, &api.GetItemInput{TableName: &table, Key: keyOf(seen), ConsistentRead: ptr(true)})
		if err != nil {
			return "", err
		}
		if !av.EqualItems(cur.Item, seen) {
			return "", errStale
		}
		cond, names, values, ok := versionCondition(seen)
		if action == "save" {
			in := &api.PutItemInput{TableName: &table, Item: it}
			if ok {
				in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues = &cond, names, values
			}
			_, err = eng.PutItem(ctx, ns, in)
		} else {
			in := &api.DeleteItemInput{TableName: &table, Key: keyOf(seen)}
			if ok {
				in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues = &cond, names, values
			}
			_, err = eng.DeleteItem(ctx, ns, in)
		}
		if isConditionFailed(err) {
			return "", errStale
		}
		if action == "delete" {
			return back, err
		}
		return itemURL(keyOf(it)), err
	}
	return "", errors.New("unknown action " + action)
}

func isConditionFailed(err error) bool {
	var ee *api.Error
	return errors.As(err, &ee) && ee.Code == api.CodeConditionalCheckFailed
}

func (c *console) iac(w http.ResponseWriter, r *http.Request) {
	ns, all, _ := c.namespace(r)
	p := page{Title: "Infrastructure as code", NS: ns, Namespaces: all}
	var rows []Provisioned
	for _, p := range c.opts.Provisioned {
		// Signed in, a table is listed to whom may describe it.
		if c.opts.Engine.Authorize(r.Context(), p.Namespace, actionDescribeTable, p.Table, "") == nil {
			rows = append(rows, p)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Position < rows[j].Position })
	p.Data = rows
	c.render(w, r, http.StatusOK, "iac", p)
}
