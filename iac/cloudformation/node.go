package cloudformation

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/extenddb/extenddb/iac/spec"
	"go.yaml.in/yaml/v3"
)

type kind uint8

const (
	kNull kind = iota
	kScalar
	kSeq
	kMap
	// kNoValue is what Ref AWS::NoValue evaluates to: the enclosing
	// property or list entry disappears.
	kNoValue
)

// node is a template value with its position. Scalars keep their source
// text; the resource schema decides their type.
type node struct {
	k     kind
	pos   spec.Pos
	s     string
	tag   string // YAML's resolved type of a scalar: str, int, float, bool, timestamp…
	keys  []string
	vals  []*node
	items []*node
	// keyPos is where each of keys is written, when known (a mapping
	// from the template; not one an intrinsic built): a diagnostic about a
	// property points at its name, as its line.
	keyPos []spec.Pos
}

// keyAt is where the i-th key of a mapping is written, else where its
// value is.
func (n *node) keyAt(i int) spec.Pos {
	if i < len(n.keyPos) && n.keyPos[i].File != "" {
		return n.keyPos[i]
	}
	return n.vals[i].pos
}

func (n *node) get(key string) *node {
	if n == nil || n.k != kMap {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// index is the position of key in a mapping's keys, -1 when absent.
func (n *node) index(key string) int {
	if n == nil || n.k != kMap {
		return -1
	}
	for i, k := range n.keys {
		if k == key {
			return i
		}
	}
	return -1
}

func (n *node) describe() string {
	if n == nil {
		return "nothing"
	}
	switch n.k {
	case kNull:
		return "null"
	case kScalar:
		return "a scalar"
	case kSeq:
		return "a list"
	case kMap:
		return "a mapping"
	}
	return "AWS::NoValue"
}

func scalar(pos spec.Pos, s string) *node { return &node{k: kScalar, pos: pos, s: s, tag: "str"} }

// longName maps a YAML short tag to its long form: the function's name
// with "Fn::" ("Ref" and "Condition" without).
func longName(tag string) (string, bool) {
	switch tag {
	case "Ref", "Condition":
		return tag, true
	case "GetAtt", "Sub", "Join", "Select", "Split", "FindInMap", "If", "Equals", "And", "Or",
		"Not", "Base64", "Cidr", "GetAZs", "ImportValue", "Transform", "Length", "ToJsonString":
		return "Fn::" + tag, true
	}
	return "", false
}

// parse reads a JSON or YAML template. JSON is valid YAML flow syntax, so
// one parser gives positions for both.
func parse(file string, data []byte) (*node, spec.Diagnostics) {
	var diags spec.Diagnostics
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		diags = append(diags, yamlErr(file, data, err))
		return nil, diags
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		diags.Errorf(spec.Pos{File: file, Line: 1, Col: 1}, "Template format error: the template is empty")
		return nil, diags
	}
	c := converter{file: file, diags: &diags}
	n := c.convert(doc.Content[0], 0)
	return n, diags
}

// yamlErr turns "yaml: line 3: …" into a positioned diagnostic. yaml.v3
// reports a mis-indented line at the start of the block it breaks, often
// far above it; when a line at or below that one is indented to no
// enclosing level, the diagnostic points there instead.
func yamlErr(file string, data []byte, err error) spec.Diagnostic {
	msg := err.Error()
	line := 0
	rest := strings.TrimPrefix(msg, "yaml: ")
	if _, e := fmt.Sscanf(rest, "line %d:", &line); e == nil {
		if i := strings.Index(rest, ":"); i >= 0 {
			rest = strings.TrimSpace(rest[i+1:])
		}
	} else {
		line = 1
	}
	col := 1
	if bad, indent := misindented(data, line); bad > 0 {
		line, col = bad, indent+1
		rest += " (this line's indentation matches no enclosing level)"
	}
	return spec.Diagnostic{Severity: spec.Error, Pos: spec.Pos{File: file, Line: line, Col: col}, Summary: "Template format error: " + rest}
}

// misindented returns the first line at or after from (1-based) that
// dedents to a column no enclosing block uses, and its indentation; 0 when
// there is none. Block scalars' contents are skipped.
func misindented(data []byte, from int) (line, indent int) {
	levels := []int{0}
	scalarAbove := -1 // inside a block scalar: lines indented deeper than this are its text
	for i, text := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(text)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "---") {
			continue
		}
		n := len(text) - len(strings.TrimLeft(text, " "))
		if scalarAbove >= 0 {
			if n > scalarAbove {
				continue
			}
			scalarAbove = -1
		}
		popped := false
		for len(levels) > 1 && levels[len(levels)-1] > n {
			levels = levels[:len(levels)-1]
			popped = true
		}
		if top := levels[len(levels)-1]; top != n {
			if popped && top < n && i+1 >= from {
				return i + 1, n
			}
			levels = append(levels, n)
		}
		// A sequence entry's content is a block at the column after "- ".
		for rest := trimmed; strings.HasPrefix(rest, "- "); {
			n += 2
			levels = append(levels, n)
			rest = strings.TrimLeft(rest[2:], " ")
		}
		if v := strings.TrimSpace(trimmed[strings.LastIndexByte(trimmed, ':')+1:]); strings.Contains(trimmed, ":") && (strings.HasPrefix(v, "|") || strings.HasPrefix(v, ">")) {
			scalarAbove = levels[len(levels)-1]
		}
	}
	return 0, 0
}

type converter struct {
	file  string
	diags *spec.Diagnostics
	nodes int
	over  bool
}

const (
	maxDepth = 200
	// maxNodes bounds the tree aliases expand to, so a "billion laughs"
	// document is an error, not an exhausted machine.
	maxNodes = 200000
)

func (c *converter) pos(y *yaml.Node) spec.Pos {
	return spec.Pos{File: c.file, Line: y.Line, Col: y.Column}
}

func (c *converter) convert(y *yaml.Node, depth int) *node {
	c.nodes++
	if depth > maxDepth || c.nodes > maxNodes {
		if !c.over {
			c.over = true
			c.diags.Errorf(c.pos(y), "Template format error: the template is nested too deeply or expands to too many values")
		}
		return &node{k: kNull, pos: c.pos(y)}
	}
	if y.Kind == yaml.AliasNode && y.Alias != nil {
		return c.convert(y.Alias, depth+1)
	}
	if y.Kind == yaml.DocumentNode && len(y.Content) > 0 {
		return c.convert(y.Content[0], depth+1)
	}
	if strings.HasPrefix(y.Tag, "!") && !strings.HasPrefix(y.Tag, "!!") {
		name, ok := longName(y.Tag[1:])
		if !ok {
			c.diags.Errorf(c.pos(y), "Template format error: unknown tag %s", y.Tag)
			return &node{k: kNull, pos: c.pos(y)}
		}
		inner := *y
		inner.Tag = ""
		var arg *node
		if y.Kind == yaml.ScalarNode {
			inner.Tag = "!!str"
			arg = c.convert(&inner, depth+1)
			// !GetAtt A.B stays a scalar: Fn::GetAtt splits it at the first
			// dot, as the long form "Fn::GetAtt": "A.B" needs too.
			arg.tag = "str"
		} else {
			arg = c.convert(&inner, depth+1)
		}
		return &node{k: kMap, pos: c.pos(y), keys: []string{name}, vals: []*node{arg}}
	}
	switch y.Kind {
	case yaml.ScalarNode:
		tag := strings.TrimPrefix(y.ShortTag(), "!!")
		if tag == "null" {
			return &node{k: kNull, pos: c.pos(y)}
		}
		return &node{k: kScalar, pos: c.pos(y), s: y.Value, tag: tag}
	case yaml.SequenceNode:
		n := &node{k: kSeq, pos: c.pos(y)}
		for _, e := range y.Content {
			n.items = append(n.items, c.convert(e, depth+1))
		}
		return n
	case yaml.MappingNode:
		n := &node{k: kMap, pos: c.pos(y)}
		seen := map[string]bool{}
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], y.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				c.diags.Errorf(c.pos(k), "Template format error: a mapping key must be a string")
				continue
			}
			if seen[k.Value] {
				c.diags.Errorf(c.pos(k), "Template format error: duplicate key %q", k.Value)
				continue
			}
			seen[k.Value] = true
			n.keys = append(n.keys, k.Value)
			n.keyPos = append(n.keyPos, c.pos(k))
			n.vals = append(n.vals, c.convert(v, depth+1))
		}
		return n
	}
	return &node{k: kNull, pos: c.pos(y)}
}

// toGo renders an evaluated node as a JSON-ready value. Scalars that YAML
// typed as numbers or booleans (and JSON's unquoted ones) stay so; the
// rest, timestamps included, are strings.
func toGo(n *node) any {
	if n == nil {
		return nil
	}
	switch n.k {
	case kScalar:
		switch n.tag {
		case "int", "float":
			if json.Valid([]byte(n.s)) {
				return json.Number(n.s)
			}
		case "bool":
			switch strings.ToLower(n.s) {
			case "true":
				return true
			case "false":
				return false
			}
		}
		return n.s
	case kSeq:
		out := []any{}
		for _, e := range n.items {
			out = append(out, toGo(e))
		}
		return out
	case kMap:
		out := map[string]any{}
		for i, k := range n.keys {
			out[k] = toGo(n.vals[i])
		}
		return out
	}
	return nil
}

func toJSON(n *node) string {
	b, err := json.Marshal(toGo(n))
	if err != nil {
		return ""
	}
	return string(b)
}
