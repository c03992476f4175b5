package partiqlexec

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/partiql"
)

// A SELECT is a Query per partition-key value when WHERE pins the partition
// key with = or IN in every OR branch, else a Scan. The key condition narrows
// what is read (and charged); the whole WHERE is then evaluated on each item
// read, so terms a KeyConditionExpression cannot hold still apply.

// pqSub is one Query of a SELECT: a partition-key value and an optional
// sort-key condition (a term of WHERE).
type pqSub struct {
	hash  partiql.Expr
	rng   partiql.Expr
	hashV av.Value
	// neg: a branch of this partition holds a negated sort-key condition
	// (NOT …, <>), so the whole partition is read.
	neg bool
}

// pqSelect is a SELECT translated for the table or index it reads.
type pqSelect struct {
	p       *pqPrepared
	t       Table
	ix      *Index
	subs    []pqSub // nil: a Scan
	forward bool
	filter  *expr.Condition
	// fetch: the attributes an LSI read asks for when the SELECT list or
	// WHERE names one outside the index's projection (the read completes
	// each entry from the table, as DynamoDB's does); nil: the index's own.
	fetch []string
}

const (
	// msgMultiKeyIndex refuses a read of a GSI whose key has more than one
	// HASH or more than one RANGE attribute (the message names tables, the
	// refusal follows the index).
	msgMultiKeyIndex  = "PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute RANGE keys."
	msgOverlap        = "Overlapping conditions with range keys are not supported in where clause"
	msgOrderNoWhere   = "Must have WHERE clause in the statement when using ORDER BY clause."
	msgOrderNoHashKey = "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
)

// planSelect resolves the table and index and splits WHERE into Queries.
func (e engine) planSelect(ctx context.Context, ns api.Namespace, p *pqPrepared, consistent bool) (*pqSelect, error) {
	st := p.st
	t, err := e.pqTable(ctx, ns, st)
	if err != nil {
		return nil, err
	}
	s := &pqSelect{p: p, t: t, forward: true}
	hashName, rangeName := t.Hash, t.Range
	var keys []KeyAttr
	if st.Index != "" {
		ix := t.Index
		if ix == nil {
			return nil, api.Validation(msgNoSuchIndex)
		}
		if !singleKey(ix.Key) {
			return nil, api.Validation(msgMultiKeyIndex)
		}
		if st.Deferred != nil {
			return nil, pqError(st.Deferred)
		}
		if !ix.Local && consistent {
			return nil, api.Validation(msgGSIConsistent)
		}
		if !ix.Local && ix.Projects != nil && !st.Star {
			if miss := missingNames(ix.Projects, selectNames(st)); len(miss) > 0 {
				return nil, api.Validation("One or more parameter values were invalid: Global secondary index %s does not project [%s]", ix.Name, strings.Join(miss, ", "))
			}
		}
		s.ix, keys = ix, ix.Key
		hashName, rangeName = keys[0].Name, ""
		if len(keys) > 1 {
			rangeName = keys[1].Name
		}
	}
	if st.Where != nil {
		c := p.newCond()
		text, err := c.cond(st.Where)
		if err != nil {
			return nil, err
		}
		ep := expr.NewParams(c.namesOrNil(), c.valuesOrNil(), e.ExprCache())
		if s.filter, err = ep.Condition(text); err != nil {
			return nil, exprError(err)
		}
		if s.subs, err = querySubs(st.Where, p.params, hashName, rangeName); err != nil {
			return nil, err
		}
	}
	if s.ix != nil && s.ix.Projects != nil && (s.subs != nil || keyedByOr(st.Where, hashName)) {
		// A keyed read of an index filters only on what the index holds
		// (an LSI too: its SELECT list may reach back to the table, its
		// filter may not).
		if miss := missingNames(s.ix.Projects, filterNames(st.Where, keys)); len(miss) > 0 {
			return nil, api.Validation("One or more parameter values were invalid: Secondary index %s does not project one or more filter attributes: [%s]",
				s.ix.Name, strings.Join(expr.JavaSetOrder(miss), ", "))
		}
	}
	if s.ix != nil && s.ix.Local && s.ix.Projects != nil && !st.Star {
		names := selectNames(st)
		if s.filter != nil {
			names = append(names, s.filter.TopLevel()...)
		}
		if len(missingNames(s.ix.Projects, names)) > 0 {
			s.fetch = names
		}
	}
	if len(st.OrderBy) > 0 {
		if st.Where == nil {
			return nil, api.Validation(msgOrderNoWhere)
		}
		if s.subs == nil {
			return nil, api.Validation(msgOrderNoHashKey)
		}
		for _, o := range st.OrderBy {
			a := o.Path.Last()
			if len(o.Path.Elems) != 1 || a != hashName && a != rangeName {
				return nil, api.Validation("Variable reference %s in ORDER BY clause must be part of the primary key", a)
			}
			if a == rangeName {
				s.forward = !o.Desc
			} else {
				sort.SliceStable(s.subs, func(i, j int) bool {
					c, _ := av.Compare(s.subs[i].hashV, s.subs[j].hashV)
					return c < 0 != o.Desc && c != 0
				})
			}
		}
	}
	return s, nil
}

// selectNames returns the top-level attributes a SELECT list names, once
// each, in statement order.
func selectNames(st *partiql.Statement) []string {
	var names []string
	seen := map[string]bool{}
	for _, p := range st.Projection {
		if len(p.Elems) == 0 || p.Elems[0].IsIndex {
			continue
		}
		if n := p.Elems[0].Name; !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names
}

// filterNames returns the top-level attributes, in statement order, of the
// AND terms of a WHERE without a top-level OR that name no attribute of the
// index key (the terms DynamoDB is known to check against a GSI's
// projection; how it checks OR branches is not recorded).
func filterNames(where partiql.Expr, keys []KeyAttr) []string {
	if len(disjuncts(where, nil)) != 1 {
		return nil
	}
	isKey := func(n string) bool {
		for _, k := range keys {
			if k.Name == n {
				return true
			}
		}
		return false
	}
	var names []string
	seen := map[string]bool{}
	for _, term := range conjuncts(where, nil) {
		ns := exprNames(term, nil)
		keyed := false
		for _, n := range ns {
			keyed = keyed || isKey(n)
		}
		if keyed {
			continue
		}
		for _, n := range ns {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// keyedByOr reports whether an AND term of where is an OR of equalities
// on the partition key (pk='a' OR pk='b'), which DynamoDB reads by key.
func keyedByOr(where partiql.Expr, hashName string) bool {
	if where == nil {
		return false
	}
	for _, term := range conjuncts(where, nil) {
		ds := disjuncts(term, nil)
		if len(ds) < 2 {
			continue
		}
		all := true
		for _, d := range ds {
			a, _, ok := keyEquality(d)
			all = all && ok && a == hashName
		}
		if all {
			return true
		}
	}
	return false
}

// exprNames appends the top-level attributes x names, in statement order.
func exprNames(x partiql.Expr, out []string) []string {
	switch x := x.(type) {
	case *partiql.PathExpr:
		if len(x.Path.Elems) > 0 && !x.Path.Elems[0].IsIndex {
			out = append(out, x.Path.Elems[0].Name)
		}
	case *partiql.Not:
		out = exprNames(x.X, out)
	case *partiql.Binary:
		out = exprNames(x.R, exprNames(x.L, out))
	case *partiql.Between:
		out = exprNames(x.Hi, exprNames(x.Lo, exprNames(x.X, out)))
	case *partiql.In:
		out = exprNames(x.X, out)
		for _, e := range x.List {
			out = exprNames(e, out)
		}
	case *partiql.Is:
		out = exprNames(x.X, out)
	case *partiql.Call:
		for _, a := range x.Args {
			out = exprNames(a, out)
		}
	}
	return out
}

// missingNames returns those of names not in set.
func missingNames(set map[string]bool, names []string) []string {
	var out []string
	for _, n := range names {
		if !set[n] {
			out = append(out, n)
		}
	}
	return out
}

// projection is the ProjectionExpression of a read that fetches (nil
// otherwise), its names placeholders #p0, #p1, … added to names.
func (s *pqSelect) projection(names map[string]string) (*string, map[string]string) {
	if s.fetch == nil {
		return nil, names
	}
	if names == nil {
		names = map[string]string{}
	}
	ph := make([]string, 0, len(s.fetch))
	seen := map[string]bool{}
	for _, n := range s.fetch {
		if seen[n] {
			continue
		}
		seen[n] = true
		p := "#p" + strconv.Itoa(len(ph))
		names[p] = n
		ph = append(ph, p)
	}
	pe := strings.Join(ph, ", ")
	return &pe, names
}

// singleKey reports whether an index key has one HASH attribute and at
// most one RANGE attribute (every HASH entry precedes every RANGE one).
func singleKey(keys []KeyAttr) bool {
	hash := 0
	for hash < len(keys) && !keys[hash].Range {
		hash++
	}
	return hash == 1 && len(keys)-hash <= 1
}

// querySubs returns the Queries WHERE decomposes into, or nil for a Scan.
func querySubs(where partiql.Expr, params []av.Value, hashName, rangeName string) ([]pqSub, error) {
	type branch struct {
		hashes []partiql.Expr
		rng    partiql.Expr
		neg    bool
	}
	var branches []branch
	for _, d := range disjuncts(where, nil) {
		var b branch
		for _, term := range conjuncts(d, nil) {
			if a, vx, ok := keyEquality(term); ok && a == hashName && b.hashes == nil {
				b.hashes = []partiql.Expr{vx}
				continue
			}
			if in, ok := term.(*partiql.In); ok && b.hashes == nil {
				if a, ok := attrOf(in.X); ok && a == hashName && allLiteral(in.List) {
					b.hashes = in.List
					continue
				}
			}
			if rangeName != "" && b.rng == nil && rangeTerm(term, rangeName) {
				b.rng = term
			}
			if rangeName != "" && negatedKey(term, rangeName, false) {
				b.neg = true
			}
		}
		if b.hashes == nil {
			return nil, nil
		}
		branches = append(branches, b)
	}
	var subs []pqSub
	at := map[string][]int{} // hash value's key text → indexes in subs
	drop := map[int]bool{}   // subs merged into a whole-partition read
	for _, b := range branches {
		for _, h := range b.hashes {
			v, err := partiql.Value(h, params)
			if err != nil {
				return nil, pqError(err)
			}
			k := string(av.AppendKey(nil, v)) + v.Type.String()
			prev := at[k]
			if len(prev) > 0 {
				if b.neg || subs[prev[0]].neg {
					// DynamoDB does not count a negated sort-key condition
					// as overlapping: the partition is read whole, once,
					// and WHERE filters it (the union of the branches).
					subs[prev[0]].rng, subs[prev[0]].neg = nil, true
					for _, i := range prev[1:] {
						drop[i] = true
					}
					at[k] = prev[:1]
					continue
				}
				merged := false
				for _, i := range prev {
					switch {
					case subs[i].rng == nil && b.rng == nil:
						merged = true
					case subs[i].rng != nil && b.rng != nil && isEquality(subs[i].rng) && isEquality(b.rng):
					default:
						return nil, api.Validation(msgOverlap)
					}
				}
				if merged {
					continue
				}
			}
			at[k] = append(prev, len(subs))
			subs = append(subs, pqSub{hash: h, rng: b.rng, hashV: v, neg: b.neg})
		}
	}
	if len(drop) > 0 {
		kept := subs[:0]
		for i, s := range subs {
			if !drop[i] {
				kept = append(kept, s)
			}
		}
		subs = kept
	}
	return subs, nil
}

// negatedKey reports whether term tests the sort key name under a NOT or
// with <> (neg: term sits under a NOT).
func negatedKey(term partiql.Expr, name string, neg bool) bool {
	switch x := term.(type) {
	case *partiql.PathExpr:
		a, ok := attrOf(x)
		return neg && ok && a == name
	case *partiql.Not:
		return negatedKey(x.X, name, true)
	case *partiql.Binary:
		if x.Op == "<>" {
			if a, ok := attrOf(x.L); ok && a == name {
				return true
			}
			if a, ok := attrOf(x.R); ok && a == name {
				return true
			}
		}
		return negatedKey(x.L, name, neg) || negatedKey(x.R, name, neg)
	case *partiql.Between:
		return negatedKey(x.X, name, neg)
	case *partiql.In:
		return negatedKey(x.X, name, neg)
	case *partiql.Is:
		return negatedKey(x.X, name, neg)
	case *partiql.Call:
		for _, a := range x.Args {
			if negatedKey(a, name, neg) {
				return true
			}
		}
	}
	return false
}

func allLiteral(xs []partiql.Expr) bool {
	for _, x := range xs {
		if !partiql.IsLiteral(x) {
			return false
		}
	}
	return true
}

func isEquality(x partiql.Expr) bool {
	b, ok := x.(*partiql.Binary)
	return ok && b.Op == "="
}

// rangeTerm reports whether term is a sort-key condition a
// KeyConditionExpression can hold: comparison, BETWEEN or begins_with of the
// key against values.
func rangeTerm(term partiql.Expr, rangeName string) bool {
	switch x := term.(type) {
	case *partiql.Binary:
		switch x.Op {
		case "=", "<", "<=", ">", ">=":
			// Only key-on-the-left: a KeyConditionExpression cannot be
			// written the other way round; the reversed form still filters.
			a, ok := attrOf(x.L)
			return ok && a == rangeName && partiql.IsLiteral(x.R)
		}
	case *partiql.Between:
		a, ok := attrOf(x.X)
		return ok && a == rangeName && partiql.IsLiteral(x.Lo) && partiql.IsLiteral(x.Hi)
	case *partiql.Call:
		if x.Name == "begins_with" && len(x.Args) == 2 {
			a, ok := attrOf(x.Args[0])
			return ok && a == rangeName && partiql.IsLiteral(x.Args[1])
		}
	}
	return false
}

// pqToken is a decoded NextToken: the request it belongs to, the Query (or
// 0 for a Scan) to resume and where.
type pqToken struct {
	Hash string  `json:"h"`
	Sub  int     `json:"s,omitempty"`
	Key  av.Item `json:"k,omitempty"`
}

// requestHash ties a token to the table, index, statement text and parameters.
func requestHash(st *partiql.Statement, text string, params []av.Value) string {
	h := sha256.New()
	var buf []byte
	buf = append(buf, st.Table...)
	buf = append(buf, 0)
	buf = append(buf, st.Index...)
	buf = append(buf, 0)
	buf = append(buf, text...)
	buf = append(buf, 0)
	for _, v := range params {
		buf = av.AppendJSON(buf, v)
		buf = append(buf, 0)
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func decodeToken(s, want string) (*pqToken, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, api.Validation("Invalid NextToken")
	}
	var tok pqToken
	if err := json.Unmarshal(raw, &tok); err != nil || tok.Hash == "" || tok.Sub < 0 {
		return nil, api.Validation("Invalid NextToken")
	}
	if tok.Hash != want {
		return nil, api.Validation("NextToken does not match request")
	}
	return &tok, nil
}

func encodeToken(tok pqToken) *string {
	raw, _ := json.Marshal(tok)
	s := base64.RawURLEncoding.EncodeToString(raw)
	return &s
}

// runSelect reads one page of a SELECT.
func (e engine) runSelect(ctx context.Context, ns api.Namespace, s *pqSelect, in *api.ExecuteStatementInput) (*api.ExecuteStatementOutput, error) {
	st := s.p.st
	// The request hash is needed only when a token is read or written.
	hash := ""
	tokenHash := func() string {
		if hash == "" {
			hash = requestHash(st, *in.Statement, s.p.params)
		}
		return hash
	}
	tok := &pqToken{}
	if in.NextToken != nil {
		var err error
		if tok, err = decodeToken(*in.NextToken, tokenHash()); err != nil {
			return nil, err
		}
		if s.subs != nil && tok.Sub >= len(s.subs) || s.subs == nil && tok.Sub != 0 {
			return nil, api.Validation("Invalid NextToken")
		}
	}
	out := &api.ExecuteStatementOutput{Items: []av.Item{}}
	var index *string
	if s.ix != nil {
		index = &s.ix.Name
	}
	var remaining int64
	if in.Limit != nil {
		remaining = *in.Limit
	}
	limit := func() *int64 {
		if in.Limit == nil {
			return nil
		}
		return &remaining
	}
	var caps []*api.ConsumedCapacity
	// The filter runs over a whole page of items: metered, it stops with
	// the request.
	m := e.Meter(ctx)
	add := func(r *api.ReadManyOutput) error {
		for _, it := range r.Items {
			if s.filter != nil {
				ok, err := s.filter.EvalMetered(it, &m)
				if merr := m.Err(); merr != nil {
					return merr
				}
				if err != nil || !ok {
					continue
				}
			}
			out.Items = append(out.Items, project(st, it))
		}
		caps = append(caps, r.ConsumedCapacity)
		return nil
	}
	if s.subs == nil {
		pe, names := s.projection(nil)
		r, err := e.Scan(ctx, ns, &api.ScanInput{TableName: &st.Table, IndexName: index, Limit: limit(),
			ExclusiveStartKey: tok.Key, ConsistentRead: in.ConsistentRead, ReturnConsumedCapacity: in.ReturnConsumedCapacity,
			ProjectionExpression: pe, ExpressionAttributeNames: names})
		if err != nil {
			return nil, err
		}
		if err := add(r); err != nil {
			return nil, err
		}
		if r.LastEvaluatedKey != nil {
			out.NextToken = encodeToken(pqToken{Hash: tokenHash(), Key: r.LastEvaluatedKey})
		}
	} else {
		esk := tok.Key
		i := tok.Sub
		if esk != nil && s.ix == nil {
			if s.t.Range == "" {
				// A hash-only table's partition is one item: the sub the
				// token names is done, and Query refuses a start key there.
				esk = nil
				i++
			}
		}
		for ; i < len(s.subs); i++ {
			q, err := s.query(s.subs[i])
			if err != nil {
				return nil, err
			}
			q.TableName, q.IndexName, q.Limit, q.ExclusiveStartKey = &st.Table, index, limit(), esk
			q.ProjectionExpression, q.ExpressionAttributeNames = s.projection(q.ExpressionAttributeNames)
			q.ConsistentRead, q.ReturnConsumedCapacity, q.ScanIndexForward = in.ConsistentRead, in.ReturnConsumedCapacity, &s.forward
			esk = nil
			r, err := e.Query(ctx, ns, q)
			if err != nil {
				return nil, err
			}
			if err := add(r); err != nil {
				return nil, err
			}
			if r.LastEvaluatedKey != nil {
				out.NextToken = encodeToken(pqToken{Hash: tokenHash(), Sub: i, Key: r.LastEvaluatedKey})
				break
			}
			if in.Limit != nil {
				remaining -= r.ScannedCount
				if remaining <= 0 {
					if i+1 < len(s.subs) {
						out.NextToken = encodeToken(pqToken{Hash: tokenHash(), Sub: i + 1})
					}
					break
				}
			}
		}
	}
	out.ConsumedCapacity = sumCapacity(caps)
	return out, nil
}

// query builds the Query of one sub: the key condition only.
func (s *pqSelect) query(sub pqSub) (*api.QueryInput, error) {
	c := s.p.newCond()
	hash := s.t.Hash
	if s.ix != nil {
		hash = s.ix.Key[0].Name
	}
	kc := c.name(hash) + " = " + c.value(sub.hashV)
	if sub.rng != nil {
		r, err := c.cond(sub.rng)
		if err != nil {
			return nil, err
		}
		kc += " AND " + r
	}
	return &api.QueryInput{KeyConditionExpression: &kc, ExpressionAttributeNames: c.namesOrNil(), ExpressionAttributeValues: c.valuesOrNil()}, nil
}

// project applies a SELECT list: each path's value keyed by its last name.
func project(st *partiql.Statement, it av.Item) av.Item {
	if st.Star {
		return it
	}
	out := make(av.Item, len(st.Projection))
	for _, p := range st.Projection {
		if v, ok := expr.Lookup(it, exprPath(p)); ok {
			out[p.Last()] = v
		}
	}
	return out
}

// sumCapacity adds up the consumed capacity of several reads of one table.
func sumCapacity(caps []*api.ConsumedCapacity) *api.ConsumedCapacity {
	var out *api.ConsumedCapacity
	for _, c := range caps {
		if c == nil {
			continue
		}
		if out == nil {
			cp := *c
			cp.Table = clonePtr(c.Table)
			cp.LocalSecondaryIndexes = cloneCapMap(c.LocalSecondaryIndexes)
			cp.GlobalSecondaryIndexes = cloneCapMap(c.GlobalSecondaryIndexes)
			out = &cp
			continue
		}
		addF(&out.CapacityUnits, c.CapacityUnits)
		addF(&out.ReadCapacityUnits, c.ReadCapacityUnits)
		addF(&out.WriteCapacityUnits, c.WriteCapacityUnits)
		if c.Table != nil {
			if out.Table == nil {
				out.Table = &api.Capacity{}
			}
			addCap(out.Table, *c.Table)
		}
		out.LocalSecondaryIndexes = mergeCapMap(out.LocalSecondaryIndexes, c.LocalSecondaryIndexes)
		out.GlobalSecondaryIndexes = mergeCapMap(out.GlobalSecondaryIndexes, c.GlobalSecondaryIndexes)
	}
	return out
}

func addF(dst **float64, v *float64) {
	if v == nil {
		return
	}
	if *dst == nil {
		*dst = f64(*v)
		return
	}
	*dst = f64(**dst + *v)
}

func f64(v float64) *float64 { return &v }

func addCap(dst *api.Capacity, c api.Capacity) {
	addF(&dst.CapacityUnits, c.CapacityUnits)
	addF(&dst.ReadCapacityUnits, c.ReadCapacityUnits)
	addF(&dst.WriteCapacityUnits, c.WriteCapacityUnits)
}

func clonePtr(c *api.Capacity) *api.Capacity {
	if c == nil {
		return nil
	}
	cp := *c
	return &cp
}

func cloneCapMap(m map[string]api.Capacity) map[string]api.Capacity {
	return mergeCapMap(nil, m)
}

func mergeCapMap(dst, src map[string]api.Capacity) map[string]api.Capacity {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]api.Capacity{}
	}
	for k, v := range src {
		d := dst[k]
		addCap(&d, v)
		dst[k] = d
	}
	return dst
}
