package policy

import "strings"

// Request is what a statement is matched against: the caller's account
// (its principal is the account or its root), the action
// ("dynamodb:PutResourcePolicy") and the resource ARN.
type Request struct {
	Account  string
	Action   string
	Resource string
}

// Denies reports whether an unconditional Deny statement of d covers r.
// Statements with a Condition are not evaluated (there is no request
// context yet), so they never count: the answer errs towards "not denied".
func (d *Document) Denies(r Request) bool {
	for i := range d.Statements {
		s := &d.Statements[i]
		if s.Effect == "Deny" && len(s.Condition) == 0 && s.covers(r) {
			return true
		}
	}
	return false
}

func (s *Statement) covers(r Request) bool {
	if s.Principal != nil && !s.Principal.matches(r.Account) {
		return false
	}
	if s.NotPrincipal != nil && s.NotPrincipal.matches(r.Account) {
		return false
	}
	if s.Action != nil && !anyMatch(s.Action, r.Action, true) {
		return false
	}
	if s.NotAction != nil && anyMatch(s.NotAction, r.Action, true) {
		return false
	}
	if s.Resource != nil && !anyMatch(s.Resource, r.Resource, false) {
		return false
	}
	if s.NotResource != nil && anyMatch(s.NotResource, r.Resource, false) {
		return false
	}
	return true
}

// matches reports whether p names account: "*", {"AWS":"*"}, the account
// ID or the account's root ARN.
func (p *Principal) matches(account string) bool {
	if p.Any {
		return true
	}
	for _, v := range p.Values["AWS"] {
		if v == "*" || v == account {
			return true
		}
		if strings.HasPrefix(v, "arn:") && strings.HasSuffix(v, ":iam::"+account+":root") {
			return true
		}
	}
	return false
}

func anyMatch(patterns []string, s string, fold bool) bool {
	for _, p := range patterns {
		if fold {
			if Wildcard(strings.ToLower(p), strings.ToLower(s)) {
				return true
			}
		} else if Wildcard(p, s) {
			return true
		}
	}
	return false
}

// Wildcard matches s against an IAM pattern: '*' any run of characters,
// '?' any one character. Iterative, so a hostile pattern costs O(len(p)·len(s)).
func Wildcard(p, s string) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]):
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
