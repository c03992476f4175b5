package policy

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The policy language versions IAM accepts.
const (
	Version2012 = "2012-10-17"
	Version2008 = "2008-10-17"
)

// Error is a malformed policy document; Message says why.
type Error struct{ Message string }

func (e *Error) Error() string { return e.Message }

func malformed(format string, args ...any) *Error {
	return &Error{Message: fmt.Sprintf(format, args...)}
}

// Document is a parsed policy document.
type Document struct {
	Version    string
	ID         string
	Statements []Statement
}

// Statement is one statement. Exactly one of Action/NotAction, of
// Resource/NotResource and of Principal/NotPrincipal is set.
type Statement struct {
	Sid          string
	Effect       string // "Allow" or "Deny"
	Principal    *Principal
	NotPrincipal *Principal
	Action       []string
	NotAction    []string
	Resource     []string
	NotResource  []string
	// Condition is operator → condition key → values, as written (numbers
	// and booleans in their JSON text).
	Condition map[string]map[string][]string
}

// Principal is "*" (Any) or a map of principal type (AWS, Service,
// Federated, CanonicalUser) to its values.
type Principal struct {
	Any    bool
	Values map[string][]string
}

var principalTypes = map[string]bool{"AWS": true, "Service": true, "Federated": true, "CanonicalUser": true}

// Parse parses and validates doc as a resource-based policy: every
// statement needs a principal, an action and a resource. Unknown members
// are refused as IAM refuses them.
func Parse(doc string) (*Document, error) { return parse(doc, true) }

// ParseIdentity parses and validates doc as an identity-based policy: as
// Parse, but statements name no principal (the identity it is attached to
// is the principal), and IAM refuses one that does.
func ParseIdentity(doc string) (*Document, error) { return parse(doc, false) }

func parse(doc string, resourcePolicy bool) (*Document, error) {
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, malformed("Invalid policy document: the policy is not valid JSON")
	}
	if _, err := dec.Token(); err == nil {
		return nil, malformed("Invalid policy document: the policy is not valid JSON")
	}
	top, ok := raw.(map[string]any)
	if !ok {
		return nil, malformed("Invalid policy document: the policy must be a JSON object")
	}
	d := &Document{}
	for _, k := range sortedKeys(top) {
		switch k {
		case "Version", "Id", "Statement":
		default:
			return nil, malformed("Invalid policy document: unknown field %s", k)
		}
	}
	if v, ok := top["Version"]; ok {
		s, isStr := v.(string)
		if !isStr || (s != Version2012 && s != Version2008) {
			return nil, malformed("Invalid policy document: Version must be %s or %s", Version2012, Version2008)
		}
		d.Version = s
	}
	if v, ok := top["Id"]; ok {
		s, isStr := v.(string)
		if !isStr {
			return nil, malformed("Invalid policy document: Id must be a string")
		}
		d.ID = s
	}
	st, ok := top["Statement"]
	if !ok {
		return nil, malformed("Invalid policy document: missing required field Statement")
	}
	var list []any
	switch s := st.(type) {
	case map[string]any:
		list = []any{s}
	case []any:
		list = s
	default:
		return nil, malformed("Invalid policy document: Statement must be an object or an array of objects")
	}
	if len(list) == 0 {
		return nil, malformed("Invalid policy document: Statement must not be empty")
	}
	sids := map[string]bool{}
	for i, s := range list {
		obj, ok := s.(map[string]any)
		if !ok {
			return nil, malformed("Invalid policy document: Statement %d must be an object", i+1)
		}
		stmt, err := parseStatement(obj, i+1, resourcePolicy)
		if err != nil {
			return nil, err
		}
		if stmt.Sid != "" {
			if sids[stmt.Sid] {
				return nil, malformed("Invalid policy document: statement IDs (SID) in a single policy must be unique: %s", stmt.Sid)
			}
			sids[stmt.Sid] = true
		}
		d.Statements = append(d.Statements, stmt)
	}
	return d, nil
}

func parseStatement(obj map[string]any, n int, resourcePolicy bool) (Statement, error) {
	var s Statement
	for _, k := range sortedKeys(obj) {
		switch k {
		case "Sid", "Effect", "Principal", "NotPrincipal", "Action", "NotAction", "Resource", "NotResource", "Condition":
		default:
			return s, malformed("Invalid policy document: unknown field %s in statement %d", k, n)
		}
	}
	if v, ok := obj["Sid"]; ok {
		sid, isStr := v.(string)
		if !isStr || !validSid(sid) {
			return s, malformed("Invalid policy document: Sid must be a string of letters and digits in statement %d", n)
		}
		s.Sid = sid
	}
	eff, ok := obj["Effect"]
	if !ok {
		return s, malformed("Invalid policy document: missing required field Effect in statement %d", n)
	}
	if e, isStr := eff.(string); !isStr || (e != "Allow" && e != "Deny") {
		return s, malformed("Invalid policy document: Effect must be Allow or Deny in statement %d", n)
	} else {
		s.Effect = e
	}
	var err error
	if resourcePolicy {
		if s.Principal, s.NotPrincipal, err = principals(obj, n); err != nil {
			return s, err
		}
	} else if _, ok := obj["Principal"]; ok {
		return s, malformed("Invalid policy document: an identity-based policy must not name a Principal (statement %d)", n)
	} else if _, ok := obj["NotPrincipal"]; ok {
		return s, malformed("Invalid policy document: an identity-based policy must not name a NotPrincipal (statement %d)", n)
	}
	if s.Action, s.NotAction, err = pair(obj, "Action", "NotAction", n, validAction); err != nil {
		return s, err
	}
	if s.Resource, s.NotResource, err = pair(obj, "Resource", "NotResource", n, validResource); err != nil {
		return s, err
	}
	if c, ok := obj["Condition"]; ok {
		if s.Condition, err = condition(c, n); err != nil {
			return s, err
		}
	}
	return s, nil
}

func validSid(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// pair reads exactly one of the members a and notA as a string or a
// non-empty list of strings, each passing valid.
func pair(obj map[string]any, a, notA string, n int, valid func(string) bool) ([]string, []string, error) {
	va, hasA := obj[a]
	vn, hasN := obj[notA]
	switch {
	case hasA && hasN:
		return nil, nil, malformed("Invalid policy document: statement %d has both %s and %s", n, a, notA)
	case !hasA && !hasN:
		return nil, nil, malformed("Invalid policy document: missing required field %s in statement %d", a, n)
	}
	name, v := a, va
	if hasN {
		name, v = notA, vn
	}
	list, err := stringList(v, name, n)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range list {
		if !valid(s) {
			return nil, nil, malformed("Invalid policy document: invalid %s %q in statement %d", name, s, n)
		}
	}
	if hasN {
		return nil, list, nil
	}
	return list, nil, nil
}

// stringList reads a string or a non-empty array of strings.
func stringList(v any, name string, n int) ([]string, error) {
	switch x := v.(type) {
	case string:
		return []string{x}, nil
	case []any:
		if len(x) == 0 {
			return nil, malformed("Invalid policy document: %s must not be empty in statement %d", name, n)
		}
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, malformed("Invalid policy document: %s must be a string or an array of strings in statement %d", name, n)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, malformed("Invalid policy document: %s must be a string or an array of strings in statement %d", name, n)
}

// validAction accepts "*" and service:action (the action part may hold
// wildcards).
func validAction(s string) bool {
	if s == "*" {
		return true
	}
	svc, act, ok := strings.Cut(s, ":")
	return ok && svc != "" && act != "" && !strings.ContainsAny(svc, "*?: ") && !strings.ContainsAny(act, ": ")
}

// validResource accepts "*" and ARNs (arn:partition:service:region:account:resource).
func validResource(s string) bool {
	if s == "*" {
		return true
	}
	parts := strings.SplitN(s, ":", 6)
	return len(parts) == 6 && parts[0] == "arn" && parts[1] != "" && parts[2] != "" && parts[5] != ""
}

// principals reads exactly one of Principal and NotPrincipal: a resource
// policy must say whom it applies to.
func principals(obj map[string]any, n int) (*Principal, *Principal, error) {
	vp, hasP := obj["Principal"]
	vn, hasN := obj["NotPrincipal"]
	switch {
	case hasP && hasN:
		return nil, nil, malformed("Invalid policy document: statement %d has both Principal and NotPrincipal", n)
	case !hasP && !hasN:
		return nil, nil, malformed("Invalid policy document: missing required field Principal in statement %d", n)
	}
	name, v := "Principal", vp
	if hasN {
		name, v = "NotPrincipal", vn
	}
	p := &Principal{}
	switch x := v.(type) {
	case string:
		if x != "*" {
			return nil, nil, malformed("Invalid policy document: %s must be \"*\" or an object in statement %d", name, n)
		}
		p.Any = true
	case map[string]any:
		if len(x) == 0 {
			return nil, nil, malformed("Invalid policy document: %s must not be empty in statement %d", name, n)
		}
		p.Values = map[string][]string{}
		for _, k := range sortedKeys(x) {
			if !principalTypes[k] {
				return nil, nil, malformed("Invalid policy document: invalid principal type %s in statement %d", k, n)
			}
			list, err := stringList(x[k], name+"."+k, n)
			if err != nil {
				return nil, nil, err
			}
			for _, s := range list {
				if s == "" {
					return nil, nil, malformed("Invalid policy document: invalid principal in statement %d", n)
				}
			}
			p.Values[k] = list
		}
	default:
		return nil, nil, malformed("Invalid policy document: %s must be \"*\" or an object in statement %d", name, n)
	}
	if hasN {
		return nil, p, nil
	}
	return p, nil, nil
}

// condition reads operator → key → value(s); values are strings, numbers
// or booleans, alone or in a non-empty array.
func condition(v any, n int) (map[string]map[string][]string, error) {
	ops, ok := v.(map[string]any)
	if !ok {
		return nil, malformed("Invalid policy document: Condition must be an object in statement %d", n)
	}
	out := map[string]map[string][]string{}
	for _, op := range sortedKeys(ops) {
		keys, ok := ops[op].(map[string]any)
		if !ok || op == "" {
			return nil, malformed("Invalid policy document: Condition operator %s must map condition keys to values in statement %d", op, n)
		}
		m := map[string][]string{}
		for _, k := range sortedKeys(keys) {
			if k == "" {
				return nil, malformed("Invalid policy document: empty condition key in statement %d", n)
			}
			vals := keys[k]
			list, isList := vals.([]any)
			if !isList {
				list = []any{vals}
			} else if len(list) == 0 {
				return nil, malformed("Invalid policy document: condition key %s has no values in statement %d", k, n)
			}
			for _, e := range list {
				s, ok := scalar(e)
				if !ok {
					return nil, malformed("Invalid policy document: condition key %s must have string, number or boolean values in statement %d", k, n)
				}
				m[k] = append(m[k], s)
			}
		}
		out[op] = m
	}
	return out, nil
}

func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		if x {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
