package policy

import (
	"net/netip"
	"strings"
)

// Decision is the outcome of evaluating a request.
type Decision uint8

const (
	// ImplicitDeny: no policy allows the request.
	ImplicitDeny Decision = iota
	// Allow: the policies that must allow it do, and none denies it.
	Allow
	// ExplicitDeny: a Deny statement covers the request.
	ExplicitDeny
)

// PolicyKind names the kind of policy a refusal is due to.
type PolicyKind uint8

// The kinds of policy a decision can blame.
const (
	IdentityBased PolicyKind = iota
	ResourceBased
)

func (k PolicyKind) String() string {
	if k == ResourceBased {
		return "resource-based"
	}
	return "identity-based"
}

// Result is a decision and the kind of policy it is due to: for an
// ExplicitDeny the kind holding the Deny, for an ImplicitDeny the kind
// that did not allow.
type Result struct {
	Decision Decision
	Kind     PolicyKind
}

// Evaluate decides r as IAM does for a principal's identity-based policies
// and the resource's resource-based policy (nil: none), the resource being
// owned by resourceAccount:
//   - an explicit Deny in either wins;
//   - in the principal's own account an Allow in either is enough;
//   - across accounts both must allow.
//
// A resource policy's statements apply only to the principals they name.
func Evaluate(r Request, identity []*Document, resource *Document, resourceAccount string) Result {
	idAllow, idDeny := false, false
	for _, d := range identity {
		a, dn := d.effect(r, false)
		idAllow, idDeny = idAllow || a, idDeny || dn
	}
	rpAllow, rpDeny := false, false
	if resource != nil {
		rpAllow, rpDeny = resource.effect(r, true)
	}
	switch {
	case idDeny:
		return Result{ExplicitDeny, IdentityBased}
	case rpDeny:
		return Result{ExplicitDeny, ResourceBased}
	}
	if resourceAccount == "" || resourceAccount == r.Account {
		if idAllow || rpAllow {
			return Result{Decision: Allow}
		}
		return Result{ImplicitDeny, IdentityBased}
	}
	switch {
	case !idAllow:
		return Result{ImplicitDeny, IdentityBased}
	case !rpAllow:
		return Result{ImplicitDeny, ResourceBased}
	}
	return Result{Decision: Allow}
}

// effect reports whether an Allow and whether a Deny statement of d apply
// to r, conditions included. Identity policies name no principal.
func (d *Document) effect(r Request, resourcePolicy bool) (allow, deny bool) {
	for i := range d.Statements {
		s := &d.Statements[i]
		if resourcePolicy && s.Principal == nil && s.NotPrincipal == nil {
			continue
		}
		if !s.covers(r) || !conditionsHold(s.Condition, r.Context) {
			continue
		}
		if s.Effect == "Deny" {
			deny = true
		} else {
			allow = true
		}
	}
	return allow, deny
}

// conditionsHold evaluates a statement's Condition block: every operator
// and every key in it must hold.
func conditionsHold(cond map[string]map[string][]string, ctx map[string][]string) bool {
	for op, keys := range cond {
		for key, want := range keys {
			want = substitute(want, ctx)
			got, present := ctx[strings.ToLower(key)]
			if !conditionHolds(op, want, got, present) {
				return false
			}
		}
	}
	return true
}

// conditionHolds evaluates one operator ("ForAllValues:StringLike",
// "ArnEqualsIfExists", "Null"…) on the policy's values want and the
// request's values got. An operator it does not know never holds, so an
// Allow it guards grants nothing (and a Deny it guards denies nothing).
func conditionHolds(op string, want, got []string, present bool) bool {
	set := ""
	if p, rest, ok := strings.Cut(op, ":"); ok {
		set, op = strings.ToLower(p), rest
	}
	if op == "Null" {
		// "true": the key is absent; "false": present. Values are ORed.
		for _, w := range want {
			if (strings.ToLower(w) == "true") != present {
				return true
			}
		}
		return false
	}
	ifExists := false
	if base, ok := strings.CutSuffix(op, "IfExists"); ok {
		op, ifExists = base, true
	}
	match, negated, known := matcher(op)
	if !known {
		return false
	}
	one := func(v string) bool {
		for _, w := range want {
			if match(w, v) {
				return true
			}
		}
		return false
	}
	if !present && ifExists {
		return true
	}
	switch set {
	case "forallvalues":
		for _, v := range got {
			if one(v) == negated {
				return false
			}
		}
		return true
	case "foranyvalue":
		for _, v := range got {
			if one(v) != negated {
				return true
			}
		}
		return false
	case "":
	default:
		return false
	}
	any := false
	for _, v := range got {
		if one(v) {
			any = true
			break
		}
	}
	if negated {
		return !any
	}
	return present && any
}

// matcher returns the comparison of an operator (policy value, request
// value), whether the operator is a negation of it, and whether it is known.
func matcher(op string) (func(w, v string) bool, bool, bool) {
	switch op {
	case "StringEquals", "StringNotEquals":
		return func(w, v string) bool { return w == v }, op == "StringNotEquals", true
	case "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase":
		return strings.EqualFold, op == "StringNotEqualsIgnoreCase", true
	case "StringLike", "StringNotLike":
		return Wildcard, op == "StringNotLike", true
	case "ArnEquals", "ArnNotEquals", "ArnLike", "ArnNotLike":
		return Wildcard, op == "ArnNotEquals" || op == "ArnNotLike", true
	case "Bool":
		return strings.EqualFold, false, true
	case "IpAddress", "NotIpAddress":
		return ipIn, op == "NotIpAddress", true
	}
	return nil, false, false
}

// ipIn reports whether address v is in w, a CIDR block or one address.
func ipIn(w, v string) bool {
	addr, err := netip.ParseAddr(v)
	if err != nil {
		return false
	}
	if p, err := netip.ParsePrefix(w); err == nil {
		return p.Contains(addr.Unmap())
	}
	if a, err := netip.ParseAddr(w); err == nil {
		return a.Unmap() == addr.Unmap()
	}
	return false
}

// substitute replaces the policy variables (${aws:username},
// ${aws:PrincipalAccount}…) in condition values with the request's values
// of those keys; ${*}, ${?} and ${$} stand for the literal characters. A
// value naming a key the request lacks can match nothing, as IAM treats an
// undefined variable; it is dropped.
func substitute(vals []string, ctx map[string][]string) []string {
	var out []string
	for i, v := range vals {
		if !strings.Contains(v, "${") {
			if out != nil {
				out = append(out, v)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(vals)), vals[:i]...)
		}
		if s, ok := expand(v, ctx); ok {
			out = append(out, s)
		}
	}
	if out == nil {
		return vals
	}
	return out
}

func expand(v string, ctx map[string][]string) (string, bool) {
	var b strings.Builder
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			b.WriteString(v)
			return b.String(), true
		}
		j := strings.IndexByte(v[i:], '}')
		if j < 0 {
			b.WriteString(v)
			return b.String(), true
		}
		b.WriteString(v[:i])
		name := v[i+2 : i+j]
		switch name {
		case "*", "?", "$":
			b.WriteString(name)
		default:
			vals := ctx[strings.ToLower(name)]
			if len(vals) != 1 {
				return "", false
			}
			b.WriteString(vals[0])
		}
		v = v[i+j+1:]
	}
}
