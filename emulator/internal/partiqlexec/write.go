package partiqlexec

import (
	"context"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/partiql"
)

// pqWrite is a PartiQL write translated into one classic item write:
// exactly one of put, update, del is set.
type pqWrite struct {
	table  string
	t      Table
	put    *api.PutItemInput
	update *api.UpdateItemInput
	del    *api.DeleteItemInput
	// key is the item's key, for duplicate checks in batches and transactions.
	key av.Item
	// modified projects RETURNING MODIFIED from the whole old or new item:
	// each SET and REMOVE path resolved on that side, list indexes packed.
	modified *expr.Projection
}

// returnValues maps RETURNING to UpdateItem's ReturnValues.
var returnValues = map[string]string{
	"ALL OLD": "ALL_OLD", "ALL NEW": "ALL_NEW", "MODIFIED OLD": "ALL_OLD", "MODIFIED NEW": "ALL_NEW",
}

// checkWriteStatic runs the checks of a write that need no table.
func checkWriteStatic(st *partiql.Statement) error {
	switch st.Kind {
	case partiql.Update, partiql.Delete:
		if st.Index != "" {
			return api.Validation(msgNotOnIndex)
		}
	}
	if st.Kind == partiql.Delete && st.Returning != "" && st.Returning != "ALL OLD" {
		return api.Validation("Invalid returning clause: RETURNING %s *. Only RETURNING ALL OLD * is allowed in DELETE statements.", st.Returning)
	}
	return nil
}

// translateWrite turns an INSERT, UPDATE or DELETE into its item write.
func (e engine) translateWrite(ctx context.Context, ns api.Namespace, p *pqPrepared, retOnFail *string) (*pqWrite, error) {
	st := p.st
	if err := checkWriteStatic(st); err != nil {
		return nil, err
	}
	c := p.newCond()
	var updText string
	if st.Kind == partiql.Update {
		var err error
		if updText, err = c.update(st); err != nil {
			return nil, err
		}
	}
	t, err := e.pqTable(ctx, ns, st)
	if err != nil {
		return nil, err
	}
	w := &pqWrite{table: st.Table, t: t}
	hash := c.name(t.Hash)
	switch st.Kind {
	case partiql.Insert:
		v, err := partiql.ItemValue(st.Value, c.p.params)
		if err != nil {
			return nil, pqError(err)
		}
		if v.Type != av.TypeM {
			return nil, api.Validation("Unsupported data type: %s under key root", v.Type)
		}
		w.key = keyOf(&t, v.M)
		w.put = &api.PutItemInput{TableName: &w.table, Item: v.M, ConditionExpression: ptrTo("attribute_not_exists(" + hash + ")"),
			ExpressionAttributeNames: c.namesOrNil()}
		return w, nil
	}
	key, rest, err := p.itemKey(&t)
	if err != nil {
		return nil, err
	}
	w.key = key
	cond, err := c.andText(rest)
	if err != nil {
		return nil, err
	}
	if st.Kind == partiql.Update {
		// The item must exist: an UPDATE never creates one.
		full := "attribute_exists(" + hash + ")"
		if cond != "" {
			full += " AND " + group(cond)
		}
		w.update = &api.UpdateItemInput{TableName: &w.table, Key: key, UpdateExpression: &updText, ConditionExpression: &full,
			ExpressionAttributeNames: c.namesOrNil(), ExpressionAttributeValues: c.valuesOrNil(),
			ReturnValuesOnConditionCheckFailure: retOnFail}
		if rv, ok := returnValues[st.Returning]; ok {
			w.update.ReturnValues = &rv
		}
		if strings.HasPrefix(st.Returning, "MODIFIED") {
			if w.modified, err = e.modifiedProjection(st); err != nil {
				return nil, err
			}
		}
		return w, nil
	}
	w.del = &api.DeleteItemInput{TableName: &w.table, Key: key, ReturnValuesOnConditionCheckFailure: retOnFail}
	if cond != "" {
		// A missing item succeeds without evaluating the condition.
		full := "attribute_not_exists(" + hash + ") OR " + group(cond)
		w.del.ConditionExpression = &full
		w.del.ExpressionAttributeNames, w.del.ExpressionAttributeValues = c.namesOrNil(), c.valuesOrNil()
	}
	if st.Returning != "" {
		w.del.ReturnValues = ptrTo("ALL_OLD")
	}
	return w, nil
}

// modifiedProjection is the projection of every path an UPDATE touches.
func (e engine) modifiedProjection(st *partiql.Statement) (*expr.Projection, error) {
	c := (&pqPrepared{st: st}).newCond()
	var paths []string
	for _, a := range st.Sets {
		paths = append(paths, c.path(a.Path))
	}
	for _, r := range st.Removes {
		paths = append(paths, c.path(r))
	}
	proj, err := expr.NewParams(c.names, nil, e.ExprCache()).Projection(strings.Join(paths, ", "))
	if err != nil {
		return nil, exprError(err)
	}
	return proj, nil
}

func ptrTo[T any](v T) *T { return &v }

// keyOf returns the key attributes present in item.
func keyOf(t *Table, item av.Item) av.Item {
	k := av.Item{}
	if v, ok := item[t.Hash]; ok {
		k[t.Hash] = v
	}
	if v, ok := item[t.Range]; ok && t.Range != "" {
		k[t.Range] = v
	}
	return k
}

// update writes an UPDATE's SET and REMOVE clauses as an UpdateExpression.
func (c *condText) update(st *partiql.Statement) (string, error) {
	var sets, adds, dels, removes []string
	for _, a := range st.Sets {
		target := c.path(a.Path)
		if f, ok := a.Value.(*partiql.Call); ok && (f.Name == "set_add" || f.Name == "set_delete") {
			s, err := c.setFunc(a.Path, f)
			if err != nil {
				return "", err
			}
			if f.Name == "set_add" {
				adds = append(adds, target+" "+s)
			} else {
				dels = append(dels, target+" "+s)
			}
			continue
		}
		v, err := c.updateValue(a.Value)
		if err != nil {
			return "", err
		}
		sets = append(sets, target+" = "+v)
	}
	for _, r := range st.Removes {
		removes = append(removes, c.path(r))
	}
	out := ""
	for _, cl := range []struct {
		kw    string
		parts []string
	}{{"SET", sets}, {"REMOVE", removes}, {"ADD", adds}, {"DELETE", dels}} {
		if len(cl.parts) == 0 {
			continue
		}
		if out != "" {
			out += " "
		}
		out += cl.kw + " " + strings.Join(cl.parts, ", ")
	}
	return out, nil
}

// setFunc checks set_add/set_delete(target, <<…>>) and returns the set's
// placeholder.
func (c *condText) setFunc(target partiql.Path, f *partiql.Call) (string, error) {
	up := "SET_ADD"
	if f.Name == "set_delete" {
		up = "SET_DELETE"
	}
	if len(f.Args) != 2 {
		return "", api.Validation("%s must have exactly two arguments%s", up, pos(f.Pos))
	}
	pe, ok := f.Args[0].(*partiql.PathExpr)
	if !ok || !samePath(pe.Path, target) {
		return "", api.Validation("The first argument to %s must equal the assignment value%s", up, pos(f.Pos))
	}
	// DynamoDB places this error at the first argument.
	notSet := api.Validation("The second argument to %s must be a value with type SET%s", up, pos(f.Args[0].At()))
	if !partiql.IsLiteral(f.Args[1]) {
		return "", notSet
	}
	v, err := c.literal(f.Args[1])
	if err != nil {
		return "", err
	}
	if v.Type != av.TypeSS && v.Type != av.TypeNS && v.Type != av.TypeBS {
		return "", notSet
	}
	return c.value(v), nil
}

func samePath(a, b partiql.Path) bool {
	if len(a.Elems) != len(b.Elems) {
		return false
	}
	for i := range a.Elems {
		if a.Elems[i] != b.Elems[i] {
			return false
		}
	}
	return true
}

// updateValue writes the right-hand side of SET.
func (c *condText) updateValue(x partiql.Expr) (string, error) {
	switch v := x.(type) {
	case *partiql.PathExpr:
		return c.path(v.Path), nil
	case *partiql.Binary:
		if v.Op != "+" && v.Op != "-" {
			break
		}
		l, err := c.updateValue(v.L)
		if err != nil {
			return "", err
		}
		r, err := c.updateValue(v.R)
		if err != nil {
			return "", err
		}
		return l + " " + v.Op + " " + r, nil
	case *partiql.Call:
		if v.Name != "list_append" && v.Name != "if_not_exists" {
			return "", api.Validation("Unrecognized function: %s%s", v.Name, pos(v.Pos))
		}
		if len(v.Args) != 2 {
			return "", api.Validation("Incorrect number of operands for operator or function; operator or function: %s, number of operands: %d", v.Name, len(v.Args))
		}
		a, err := c.updateValue(v.Args[0])
		if err != nil {
			return "", err
		}
		b, err := c.updateValue(v.Args[1])
		if err != nil {
			return "", err
		}
		return v.Name + "(" + a + ", " + b + ")", nil
	}
	return c.literalValue(x)
}

// runWrite performs a translated write and returns its RETURNING item (nil
// when none) and consumed capacity. INSERT of an existing key is
// DuplicateItemException.
func (e engine) runWrite(ctx context.Context, ns api.Namespace, w *pqWrite, retConsumed *string) (av.Item, *api.ConsumedCapacity, error) {
	var out *api.WriteItemOutput
	var err error
	switch {
	case w.put != nil:
		w.put.ReturnConsumedCapacity = retConsumed
		out, err = e.PutItem(ctx, ns, w.put)
		if hasCode(err, api.CodeConditionalCheckFailed) {
			return nil, nil, api.NewError(CodeDuplicateItem, msgDuplicateItem)
		}
	case w.update != nil:
		w.update.ReturnConsumedCapacity = retConsumed
		out, err = e.UpdateItem(ctx, ns, w.update)
	default:
		w.del.ReturnConsumedCapacity = retConsumed
		out, err = e.DeleteItem(ctx, ns, w.del)
	}
	if err != nil {
		return nil, nil, err
	}
	if w.modified != nil && out.Attributes != nil {
		return w.modified.Project(out.Attributes), out.ConsumedCapacity, nil
	}
	return out.Attributes, out.ConsumedCapacity, nil
}
