package policy

import "strings"

// Request is what a statement is matched against: the caller's account
// and principal ARN (empty: the account's root), the action
// ("dynamodb:PutResourcePolicy"), the resource ARN and the condition
// context (condition key in lower case → values; a key that is absent has
// no entry).
type Request struct {
	Account   string
	Principal string
	Action    string
	Resource  string
	Context   map[string][]string
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
	if s.Principal != nil && !s.Principal.matches(r.Account, r.Principal) {
		return false
	}
	if s.NotPrincipal != nil && s.NotPrincipal.matches(r.Account, r.Principal) {
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

// matches reports whether p names the caller: "*", {"AWS":"*"}, its
// account ID or the account's root ARN (which stand for every principal of
// the account), its own ARN, or, for a role session
// (arn:aws:sts::A:assumed-role/R/S), its role's ARN.
func (p *Principal) matches(account, principal string) bool {
	if p.Any {
		return true
	}
	role := roleOfSession(principal)
	for _, v := range p.Values["AWS"] {
		if v == "*" || v == account || (principal != "" && v == principal) || (role != "" && v == role) {
			return true
		}
		if strings.HasPrefix(v, "arn:") && strings.HasSuffix(v, ":iam::"+account+":root") {
			return true
		}
	}
	return false
}

// roleOfSession is the role ARN of an assumed-role session ARN, else "".
func roleOfSession(arn string) string {
	rest, ok := strings.CutPrefix(arn, "arn:")
	if !ok {
		return ""
	}
	partition, rest, ok1 := strings.Cut(rest, ":sts::")
	account, rest, ok2 := strings.Cut(rest, ":assumed-role/")
	role, _, ok3 := strings.Cut(rest, "/")
	if !ok1 || !ok2 || !ok3 || role == "" {
		return ""
	}
	return "arn:" + partition + ":iam::" + account + ":role/" + role
}

// RoleOfSession is the role ARN of an assumed-role session ARN
// (arn:aws:sts::A:assumed-role/R/S → arn:aws:iam::A:role/R), else "".
func RoleOfSession(arn string) string { return roleOfSession(arn) }

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
