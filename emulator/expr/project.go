package expr

import (
	"sort"

	"github.com/extenddb/extenddb/emulator/av"
)

// Projection is a bound ProjectionExpression (or AttributesToGet).
type Projection struct {
	paths []Path
}

// Paths returns the projected document paths.
func (p *Projection) Paths() []Path { return p.paths }

// TopLevel returns the distinct top-level attribute names the projection
// reads, in order, for index-projection checks.
func (p *Projection) TopLevel() []string {
	var names []string
	seen := map[string]bool{}
	for _, path := range p.paths {
		if n := path[0].Name; !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names
}

// Project returns the parts of item the projection names: nested map keys
// keep their nesting, list elements keep their order (without gaps), and
// paths that do not exist are left out.
func (p *Projection) Project(item av.Item) av.Item {
	if p == nil {
		return item
	}
	return projectPaths(item, p.paths)
}

// projNode is a trie of projected paths.
type projNode struct {
	leaf  bool
	names map[string]*projNode
	idx   map[int]*projNode
}

func (n *projNode) child(e PathElem) *projNode {
	if e.IsIndex {
		if n.idx == nil {
			n.idx = map[int]*projNode{}
		}
		c := n.idx[e.Index]
		if c == nil {
			c = &projNode{}
			n.idx[e.Index] = c
		}
		return c
	}
	if n.names == nil {
		n.names = map[string]*projNode{}
	}
	c := n.names[e.Name]
	if c == nil {
		c = &projNode{}
		n.names[e.Name] = c
	}
	return c
}

func projectPaths(item av.Item, paths []Path) av.Item {
	root := &projNode{}
	for _, p := range paths {
		n := root
		for _, e := range p {
			n = n.child(e)
		}
		n.leaf = true
	}
	out := av.Item{}
	for name, n := range root.names {
		v, ok := item[name]
		if !ok {
			continue
		}
		if pv, ok := projectValue(v, n); ok {
			out[name] = pv
		}
	}
	return out
}

func projectValue(v av.Value, n *projNode) (av.Value, bool) {
	if n.leaf {
		return v.Clone(), true
	}
	switch v.Type {
	case av.TypeM:
		if n.names == nil {
			return av.Value{}, false
		}
		m := map[string]av.Value{}
		for k, c := range n.names {
			if e, ok := v.M[k]; ok {
				if pv, ok := projectValue(e, c); ok {
					m[k] = pv
				}
			}
		}
		if len(m) == 0 {
			return av.Value{}, false
		}
		return av.Value{Type: av.TypeM, M: m}, true
	case av.TypeL:
		if n.idx == nil {
			return av.Value{}, false
		}
		idx := make([]int, 0, len(n.idx))
		for i := range n.idx {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		var l []av.Value
		for _, i := range idx {
			if i < len(v.L) {
				if pv, ok := projectValue(v.L[i], n.idx[i]); ok {
					l = append(l, pv)
				}
			}
		}
		if len(l) == 0 {
			return av.Value{}, false
		}
		return av.Value{Type: av.TypeL, L: l}, true
	}
	return av.Value{}, false
}
