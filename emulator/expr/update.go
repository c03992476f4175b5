package expr

import (
	"sort"

	"github.com/extenddb/extenddb/emulator/av"
)

// Update is a bound update expression (or converted AttributeUpdates),
// immutable and safe for concurrent use.
type Update struct {
	actions []action
}

// Applied is the outcome of applying an update to an item.
type Applied struct {
	// Item is the updated item: a new map, the input is not modified.
	Item av.Item
	// Paths are the document paths the update wrote or removed, in the
	// form they took effect (a SET past the end of a list names the index
	// the value landed at).
	Paths []Path
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

// ApplyPaths applies the update and also reports the paths it changed, from
// which UpdatedOld/UpdatedNew build ReturnValues.
func (u *Update) ApplyPaths(item av.Item) (Applied, error) {
	// Every SET operand reads the item as it was before the update.
	vals := make([]av.Value, len(u.actions))
	for i, a := range u.actions {
		if a.kind != uSet {
			continue
		}
		v, err := evalUpdateValue(a.val, item)
		if err != nil {
			return Applied{}, err
		}
		vals[i] = v
	}

	out := make(av.Item, len(item)+2)
	for k, v := range item {
		out[k] = v
	}
	cloned := map[string]bool{}
	own := func(name string) {
		if !cloned[name] {
			if v, ok := out[name]; ok {
				out[name] = v.Clone()
			}
			cloned[name] = true
		}
	}

	var paths []Path
	var removes []Path
	for i, a := range u.actions {
		own(a.path[0].Name)
		switch a.kind {
		case uSet:
			p, err := setPath(out, a.path, vals[i])
			if err != nil {
				return Applied{}, err
			}
			paths = append(paths, p)
		case uRemove:
			removes = append(removes, a.path)
		case uAdd:
			if err := addPath(out, a.path, a.val.val); err != nil {
				return Applied{}, err
			}
			paths = append(paths, a.path)
		case uDelete:
			if err := deletePath(out, a.path, a.val.val); err != nil {
				return Applied{}, err
			}
			paths = append(paths, a.path)
		}
	}
	// Several indexes of one list name the elements as they were before the
	// update: remove from the highest index down so the others stay put.
	sort.SliceStable(removes, func(i, j int) bool { return pathAfter(removes[i], removes[j]) })
	for _, p := range removes {
		if err := removePath(out, p); err != nil {
			return Applied{}, err
		}
		paths = append(paths, p)
	}
	return Applied{Item: out, Paths: paths}, nil
}

// pathAfter orders paths so that, within the same list, higher indexes
// come first.
func pathAfter(a, b Path) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] == b[i] {
			continue
		}
		if a[i].IsIndex && b[i].IsIndex {
			return a[i].Index > b[i].Index
		}
		return false
	}
	return false
}

// UpdatedOld is ReturnValues=UPDATED_OLD: the changed paths as they were.
func (a Applied) UpdatedOld(old av.Item) av.Item { return projectPaths(old, a.Paths) }

// UpdatedNew is ReturnValues=UPDATED_NEW: the changed paths as they are now.
func (a Applied) UpdatedNew() av.Item { return projectPaths(a.Item, a.Paths) }

func evalUpdateValue(o *operand, item av.Item) (av.Value, error) {
	switch o.kind {
	case opValue:
		return o.val, nil
	case opPath:
		v, ok := Lookup(item, o.path)
		if !ok {
			return av.Value{}, errorf(MsgAttributeNotExist)
		}
		return v, nil
	case opPlus, opMinus:
		a, err := evalUpdateValue(o.args[0], item)
		if err != nil {
			return av.Value{}, err
		}
		b, err := evalUpdateValue(o.args[1], item)
		if err != nil {
			return av.Value{}, err
		}
		if a.Type != av.TypeN || b.Type != av.TypeN {
			return av.Value{}, errorf(MsgIncorrectOperandType)
		}
		var s string
		if o.kind == opPlus {
			s, err = av.AddNumbers(a.S, b.S)
		} else {
			s, err = av.SubtractNumbers(a.S, b.S)
		}
		if err != nil {
			return av.Value{}, errorf(err.Error())
		}
		return av.Value{Type: av.TypeN, S: s}, nil
	case opFunc:
		switch o.fn {
		case "if_not_exists":
			if v, ok := Lookup(item, o.args[0].path); ok {
				return v, nil
			}
			return evalUpdateValue(o.args[1], item)
		case "list_append":
			a, err := evalUpdateValue(o.args[0], item)
			if err != nil {
				return av.Value{}, err
			}
			b, err := evalUpdateValue(o.args[1], item)
			if err != nil {
				return av.Value{}, err
			}
			if a.Type != av.TypeL || b.Type != av.TypeL {
				return av.Value{}, errorf(MsgIncorrectOperandType)
			}
			l := make([]av.Value, 0, len(a.L)+len(b.L))
			l = append(append(l, a.L...), b.L...)
			return av.Value{Type: av.TypeL, L: l}, nil
		}
	}
	return av.Value{}, errorf(MsgIncorrectOperandType)
}

// parentOf walks to the container of the path's last element, which must
// exist and have the right type (map for a name, list for an index).
func parentOf(item av.Item, path Path) (*av.Value, bool) {
	if len(path) < 2 {
		return nil, true
	}
	v, ok := item[path[0].Name]
	if !ok {
		return nil, false
	}
	cur := &v
	// Values hold maps and slices by reference, so walking by value and
	// writing through the final container is enough; the top-level value
	// was cloned before any write.
	for _, e := range path[1 : len(path)-1] {
		if e.IsIndex {
			if cur.Type != av.TypeL || e.Index >= len(cur.L) {
				return nil, false
			}
			cur = &cur.L[e.Index]
		} else {
			if cur.Type != av.TypeM {
				return nil, false
			}
			nv, ok := cur.M[e.Name]
			if !ok {
				return nil, false
			}
			cur = &nv
		}
	}
	last := path[len(path)-1]
	if last.IsIndex && cur.Type != av.TypeL || !last.IsIndex && cur.Type != av.TypeM {
		return nil, false
	}
	return cur, true
}

func setPath(item av.Item, path Path, v av.Value) (Path, error) {
	if len(path) == 1 {
		item[path[0].Name] = v
		return path, nil
	}
	parent, ok := parentOf(item, path)
	if !ok {
		return nil, errorf(MsgPathInvalidForUpdate)
	}
	last := path[len(path)-1]
	if !last.IsIndex {
		parent.M[last.Name] = v
		return path, nil
	}
	if last.Index < len(parent.L) {
		parent.L[last.Index] = v
		return path, nil
	}
	// Past the end appends. The slice header changes, so write it back.
	parent.L = append(parent.L, v)
	writeBack(item, path[:len(path)-1], *parent)
	p := append(Path(nil), path...)
	p[len(p)-1].Index = len(parent.L) - 1
	return p, nil
}

// writeBack stores v at path (whose containers exist) after a container's
// slice header changed.
func writeBack(item av.Item, path Path, v av.Value) {
	if len(path) == 1 {
		item[path[0].Name] = v
		return
	}
	parent, _ := parentOf(item, path)
	last := path[len(path)-1]
	if last.IsIndex {
		parent.L[last.Index] = v
	} else {
		parent.M[last.Name] = v
	}
}

func removePath(item av.Item, path Path) error {
	if len(path) == 1 {
		delete(item, path[0].Name)
		return nil
	}
	parent, ok := parentOf(item, path)
	if !ok {
		if _, exists := Lookup(item, path[:len(path)-1]); exists {
			return errorf(MsgPathInvalidForUpdate)
		}
		return nil
	}
	last := path[len(path)-1]
	if !last.IsIndex {
		delete(parent.M, last.Name)
		return nil
	}
	if last.Index >= len(parent.L) {
		return nil
	}
	l := append(parent.L[:last.Index:last.Index], parent.L[last.Index+1:]...)
	parent.L = l
	writeBack(item, path[:len(path)-1], *parent)
	return nil
}

func addPath(item av.Item, path Path, v av.Value) error {
	cur, exists := Lookup(item, path)
	if !exists {
		_, err := setPath(item, path, v)
		return err
	}
	switch {
	case cur.Type == av.TypeN && v.Type == av.TypeN:
		s, err := av.AddNumbers(cur.S, v.S)
		if err != nil {
			return errorf(err.Error())
		}
		_, err = setPath(item, path, av.Value{Type: av.TypeN, S: s})
		return err
	case cur.Type == av.TypeL && v.Type == av.TypeL: // legacy ADD appends
		l := append(append([]av.Value(nil), cur.L...), v.L...)
		_, err := setPath(item, path, av.Value{Type: av.TypeL, L: l})
		return err
	case isSet(cur.Type) && cur.Type == v.Type:
		members := append([]string(nil), cur.Set...)
		for _, m := range v.Set {
			if !setHas(cur.Type, members, m) {
				members = append(members, m)
			}
		}
		_, err := setPath(item, path, av.Value{Type: cur.Type, Set: members})
		return err
	}
	return errorf(MsgIncorrectOperandType)
}

func deletePath(item av.Item, path Path, v av.Value) error {
	cur, exists := Lookup(item, path)
	if !exists {
		if len(path) > 1 {
			if _, ok := parentOf(item, path); !ok {
				return errorf(MsgPathInvalidForUpdate)
			}
		}
		return nil
	}
	if cur.Type != v.Type {
		return errorf(MsgIncorrectOperandType)
	}
	var members []string
	for _, m := range cur.Set {
		if !setHas(cur.Type, v.Set, m) {
			members = append(members, m)
		}
	}
	if len(members) == 0 {
		return removePath(item, path)
	}
	_, err := setPath(item, path, av.Value{Type: cur.Type, Set: members})
	return err
}

func isSet(t av.Type) bool { return t == av.TypeSS || t == av.TypeNS || t == av.TypeBS }
