package expr

import (
	"sort"

	"github.com/extenddb/extenddb/emulator/av"
)

// Update is a bound update expression (or converted AttributeUpdates),
// immutable and safe for concurrent use.
type Update struct {
	actions []action
	// legacy marks AttributeUpdates, whose type errors DynamoDB words
	// differently from an UpdateExpression's.
	legacy bool
}

// Applied is the outcome of applying an update to an item.
type Applied struct {
	// Item is the updated item: a new map, the input is not modified.
	Item av.Item
	// Paths are the document paths the update wrote or removed, as
	// written (a SET past the end of a list names the index it asked for,
	// not the one the value landed at, as DynamoDB's ReturnValues do).
	Paths []Path
}

// OnlyRemoves reports whether every action of u removes an attribute
// (REMOVE, or AttributeUpdates DELETE with or without a value): such an
// update of a missing item creates nothing. For AttributeUpdates DynamoDB
// documents it ("DELETE - Nothing happens; there is no attribute to
// delete"), a Value (members to take out of a set) included.
func (u *Update) OnlyRemoves() bool {
	for _, a := range u.actions {
		if a.kind != uRemove && (a.kind != uDelete || !u.legacy) {
			return false
		}
	}
	return len(u.actions) > 0
}

// CheckKeys returns DynamoDB's error when an action targets one of the
// table's key attributes. Call it with the key attribute names before
// reading the item.
func (u *Update) CheckKeys(keyNames ...string) error {
	for _, a := range u.actions {
		for _, k := range keyNames {
			if a.path[0].Name == k {
				return errorf(invalidParams, "Cannot update attribute ", k, ". This attribute is part of the key")
			}
		}
	}
	return nil
}

// Apply returns item with the update applied. A missing item is nil or
// empty; the caller adds the key attributes first.
func (u *Update) Apply(item av.Item) (av.Item, error) {
	a, err := u.ApplyPaths(item)
	return a.Item, err
}

// evalErr distinguishes the two failures of a SET operand: a wrong type is
// reported at once, a missing attribute only after the path checks.
type evalErr struct {
	msg     string
	missing bool
}

// ApplyPaths applies the update and also reports the paths it changed, from
// which UpdatedOld/UpdatedNew build ReturnValues.
//
// Every operand reads the item as it was before the update, and problems
// are reported in DynamoDB's order: a path whose parent is there but is not
// a map (or list) as the path needs; then a wrong operand type anywhere;
// then, clause by clause from the last to the first, a path whose parent is
// missing and an attribute a SET reads that is missing; then numbers out of
// range.
func (u *Update) ApplyPaths(item av.Item) (Applied, error) {
	n := len(u.actions)
	for _, a := range u.actions {
		if len(a.path) > 1 {
			if _, ok := Lookup(item, a.path[:len(a.path)-1]); ok && !writable(item, a.path) {
				return Applied{}, errorf(MsgPathInvalidForUpdate)
			}
		}
	}
	vals := make([]av.Value, n)
	missing := make([]*evalErr, n)
	var numErr error
	lastClause := 0
	for i, a := range u.actions {
		lastClause = max(lastClause, a.clause)
		switch a.kind {
		case uSet:
			v, e, nerr := evalSet(a.val, item)
			if e != nil && !e.missing {
				return Applied{}, errorf(e.msg)
			}
			missing[i] = e
			vals[i] = v
			if numErr == nil {
				numErr = nerr
			}
		case uAdd, uDelete:
			if !writable(item, a.path) {
				continue
			}
			cur, ok := Lookup(item, a.path)
			if !ok {
				continue
			}
			v := a.val.val
			if !operandFits(a.kind, cur, v) {
				if u.legacy {
					return Applied{}, errorf(MsgTypeMismatchForUpdate)
				}
				return Applied{}, errorf(MsgIncorrectOperandType)
			}
			if a.kind == uAdd && v.Type == av.TypeN {
				if _, err := av.AddNumbers(cur.S, v.S); err != nil {
					return Applied{}, errorf(err.Error())
				}
			}
		}
	}
	for c := lastClause; c >= 0; c-- {
		for _, a := range u.actions {
			if a.clause == c && !writable(item, a.path) {
				return Applied{}, errorf(MsgPathInvalidForUpdate)
			}
		}
		for i, a := range u.actions {
			if a.clause == c && missing[i] != nil {
				return Applied{}, errorf(missing[i].msg)
			}
		}
	}
	if numErr != nil {
		return Applied{}, errorf(numErr.Error())
	}
	return u.write(item, vals)
}

// operandFits reports whether an ADD or DELETE operand suits the value
// already stored.
func operandFits(k updKind, cur, v av.Value) bool {
	if k == uDelete {
		return cur.Type == v.Type
	}
	return v.Type == av.TypeN && cur.Type == av.TypeN ||
		isSet(v.Type) && cur.Type == v.Type ||
		v.Type == av.TypeL && cur.Type == av.TypeL // legacy AttributeUpdates ADD appends
}

// writable reports whether the place a path names can be written: every
// step before the last exists, and is a map before a name or a list before
// an index.
func writable(item av.Item, path Path) bool {
	if len(path) == 1 {
		return true
	}
	parent, ok := Lookup(item, path[:len(path)-1])
	if !ok {
		return false
	}
	if path[len(path)-1].IsIndex {
		return parent.Type == av.TypeL
	}
	return parent.Type == av.TypeM
}

// evalSet computes a SET operand from the item before the update. The
// third result is an arithmetic failure (number out of range), reported
// after the other checks.
func evalSet(o *operand, item av.Item) (av.Value, *evalErr, error) {
	switch o.kind {
	case opValue:
		return o.val, nil, nil
	case opPath:
		v, ok := Lookup(item, o.path)
		if !ok {
			return av.Value{}, &evalErr{msg: MsgAttributeNotExist, missing: true}, nil
		}
		return v, nil, nil
	case opPlus, opMinus:
		a, e, nerr := evalSet(o.args[0], item)
		if e != nil {
			return av.Value{}, e, nil
		}
		if a.Type != av.TypeN {
			return av.Value{}, &evalErr{msg: MsgIncorrectOperandType}, nil
		}
		b, e, nerr2 := evalSet(o.args[1], item)
		if e != nil {
			return av.Value{}, e, nil
		}
		if b.Type != av.TypeN {
			return av.Value{}, &evalErr{msg: MsgIncorrectOperandType}, nil
		}
		if nerr == nil {
			nerr = nerr2
		}
		var s string
		var err error
		if o.kind == opPlus {
			s, err = av.AddNumbers(a.S, b.S)
		} else {
			s, err = av.SubtractNumbers(a.S, b.S)
		}
		if err != nil && nerr == nil {
			nerr = err
		}
		return av.Value{Type: av.TypeN, S: s}, nil, nerr
	case opFunc:
		switch o.fn {
		case "if_not_exists":
			if v, ok := Lookup(item, o.args[0].path); ok {
				return v, nil, nil
			}
			return evalSet(o.args[1], item)
		case "list_append":
			a, e, _ := evalSet(o.args[0], item)
			if e != nil {
				return av.Value{}, e, nil
			}
			if a.Type != av.TypeL {
				return av.Value{}, &evalErr{msg: MsgIncorrectOperandType}, nil
			}
			b, e, _ := evalSet(o.args[1], item)
			if e != nil {
				return av.Value{}, e, nil
			}
			if b.Type != av.TypeL {
				return av.Value{}, &evalErr{msg: MsgIncorrectOperandType}, nil
			}
			l := make([]av.Value, 0, len(a.L)+len(b.L))
			l = append(append(l, a.L...), b.L...)
			return av.Value{Type: av.TypeL, L: l}, nil, nil
		}
	}
	return av.Value{}, &evalErr{msg: MsgIncorrectOperandType}, nil
}

// write is one change to make: a value to set, or a removal.
type write struct {
	path   Path
	remove bool
	val    av.Value
}

// listOp gathers the writes into one list, which all name the elements by
// their positions before the update.
type listOp struct {
	parent Path
	writes []write
}

// write applies the checked update to a copy of item.
func (u *Update) write(item av.Item, vals []av.Value) (Applied, error) {
	var writes []write
	for i, a := range u.actions {
		switch a.kind {
		case uSet:
			writes = append(writes, write{path: a.path, val: vals[i]})
		case uRemove:
			writes = append(writes, write{path: a.path, remove: true})
		case uAdd:
			v := a.val.val
			cur, ok := Lookup(item, a.path)
			switch {
			case !ok:
			case v.Type == av.TypeN:
				s, err := av.AddNumbers(cur.S, v.S)
				if err != nil {
					return Applied{}, errorf(err.Error())
				}
				v = av.Value{Type: av.TypeN, S: s}
			case v.Type == av.TypeL:
				v = av.Value{Type: av.TypeL, L: append(append([]av.Value(nil), cur.L...), v.L...)}
			default:
				members := append([]string(nil), cur.Set...)
				for _, m := range v.Set {
					if !setHas(cur.Type, members, m) {
						members = append(members, m)
					}
				}
				v = av.Value{Type: cur.Type, Set: members}
			}
			writes = append(writes, write{path: a.path, val: v})
		case uDelete:
			cur, ok := Lookup(item, a.path)
			if !ok {
				continue
			}
			var members []string
			for _, m := range cur.Set {
				if !setHas(cur.Type, a.val.val.Set, m) {
					members = append(members, m)
				}
			}
			if len(members) == 0 {
				writes = append(writes, write{path: a.path, remove: true})
			} else {
				writes = append(writes, write{path: a.path, val: av.Value{Type: cur.Type, Set: members}})
			}
		}
	}

	out := make(av.Item, len(item)+len(writes))
	for k, v := range item {
		out[k] = v
	}
	owned := map[string]bool{}
	var lists []*listOp
	var paths []Path
	for _, w := range writes {
		name := w.path[0].Name
		if len(w.path) == 1 {
			if w.remove {
				delete(out, name)
			} else {
				out[name] = w.val
			}
			paths = append(paths, w.path)
			continue
		}
		if !owned[name] {
			// Nested writes go into a private copy of the attribute.
			out[name] = out[name].Clone()
			owned[name] = true
		}
		last := w.path[len(w.path)-1]
		if !last.IsIndex {
			parent, _ := lookupPtr(out, w.path[:len(w.path)-1])
			if w.remove {
				delete(parent.M, last.Name)
			} else {
				parent.M[last.Name] = w.val
			}
			paths = append(paths, w.path)
			continue
		}
		parentPath := w.path[:len(w.path)-1]
		var op *listOp
		for _, l := range lists {
			if l.parent.equal(parentPath) {
				op = l
			}
		}
		if op == nil {
			op = &listOp{parent: parentPath}
			lists = append(lists, op)
		}
		op.writes = append(op.writes, w)
	}
	// Inner lists first, so that an outer list rebuilt later carries them.
	sort.SliceStable(lists, func(i, j int) bool { return len(lists[i].parent) > len(lists[j].parent) })
	for _, op := range lists {
		paths = append(paths, applyListOp(out, op)...)
	}
	return Applied{Item: out, Paths: paths}, nil
}

// applyListOp replaces and removes elements by their old positions and
// appends values set past the end in the order of their indexes.
func applyListOp(item av.Item, op *listOp) []Path {
	parent, _ := lookupPtr(item, op.parent)
	old := parent.L
	removed := map[int]bool{}
	type appendix struct {
		index int
		path  Path
		val   av.Value
	}
	var appends []appendix
	var paths []Path
	for _, w := range op.writes {
		idx := w.path[len(w.path)-1].Index
		switch {
		case w.remove:
			if idx < len(old) {
				removed[idx] = true
				paths = append(paths, w.path)
			}
		case idx < len(old):
			old[idx] = w.val
			paths = append(paths, w.path)
		default:
			appends = append(appends, appendix{idx, w.path, w.val})
		}
	}
	sort.SliceStable(appends, func(i, j int) bool { return appends[i].index < appends[j].index })
	l := make([]av.Value, 0, len(old)-len(removed)+len(appends))
	for i, v := range old {
		if !removed[i] {
			l = append(l, v)
		}
	}
	for _, a := range appends {
		// DynamoDB reports the path as written (ReturnValues reads it
		// back from the items), not the index the value landed at.
		paths = append(paths, a.path)
		l = append(l, a.val)
	}
	storeAt(item, op.parent, av.Value{Type: av.TypeL, L: l})
	return paths
}

// lookupPtr returns a pointer to the value at path (which exists). Lists
// and maps are shared with the item, so changing their elements through the
// pointer changes the item; changing the value's own list header does not,
// which is why storeAt writes whole values back.
func lookupPtr(item av.Item, path Path) (*av.Value, bool) {
	v, ok := Lookup(item, path)
	return &v, ok
}

// storeAt writes v at path, whose containers exist.
func storeAt(item av.Item, path Path, v av.Value) {
	if len(path) == 1 {
		item[path[0].Name] = v
		return
	}
	parent, _ := lookupPtr(item, path[:len(path)-1])
	last := path[len(path)-1]
	if last.IsIndex {
		parent.L[last.Index] = v
	} else {
		parent.M[last.Name] = v
	}
}

// UpdatedOld is ReturnValues=UPDATED_OLD: the changed paths as they were,
// nested as in the item (SET a.b returns {a: {b: old}}); nil when none of
// them existed, in which case DynamoDB omits Attributes.
func (a Applied) UpdatedOld(old av.Item) av.Item { return nilIfEmpty(projectPaths(old, a.Paths)) }

// UpdatedNew is ReturnValues=UPDATED_NEW: the changed paths as they are now
// (a REMOVE-only update gives nil).
func (a Applied) UpdatedNew() av.Item { return nilIfEmpty(projectPaths(a.Item, a.Paths)) }

func nilIfEmpty(it av.Item) av.Item {
	if len(it) == 0 {
		return nil
	}
	return it
}

func isSet(t av.Type) bool { return t == av.TypeSS || t == av.TypeNS || t == av.TypeBS }
