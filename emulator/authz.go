package emulator

// Authorization (--auth=sigv4): the wire authenticates a request and puts
// its Caller in the context; the engine, where it resolves the table a
// request acts on, evaluates the caller's identity policies and the
// table's (or stream's) resource policy with package policy. Without a
// Caller (--auth=off, the Go API) nothing is checked.

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"sync"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/policy"
)

// CodeAccessDenied is IAM's refusal.
const CodeAccessDenied = api.CodeAccessDenied

// Caller is an authenticated principal.
type Caller struct {
	// Account is the principal's account, ARN the principal
	// (arn:aws:iam::A:user/U, arn:aws:sts::A:assumed-role/R/S…).
	Account string
	ARN     string
	// PrincipalARN is aws:PrincipalArn: the role's ARN for a role session.
	PrincipalARN string
	// Policies are the principal's identity-based policies.
	Policies []*policy.Document
	// SourceIP is aws:SourceIp.
	SourceIP string
	// UserName is aws:username (IAM users only), UserID aws:userid.
	UserName string
	UserID   string
}

type callerKey struct{}

// WithCaller returns ctx carrying c: the engine authorizes every request
// made with it.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

func callerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// crossAccountActions are the actions a principal of another account may
// be granted by a resource policy (the cross-account column of DynamoDB's
// support matrix); for any other action another account's resource policy
// is not consulted.
var crossAccountActions = map[string]bool{
	"dynamodb:GetItem": true, "dynamodb:PutItem": true, "dynamodb:UpdateItem": true, "dynamodb:DeleteItem": true,
	"dynamodb:Query": true, "dynamodb:Scan": true, "dynamodb:BatchGetItem": true, "dynamodb:BatchWriteItem": true,
	"dynamodb:ConditionCheckItem": true, "dynamodb:DescribeTable": true, "dynamodb:UpdateTable": true, "dynamodb:DeleteTable": true,
	"dynamodb:DescribeStream": true, "dynamodb:GetRecords": true, "dynamodb:GetShardIterator": true,
	"dynamodb:GetResourcePolicy": true, "dynamodb:PutResourcePolicy": true, "dynamodb:DeleteResourcePolicy": true,
	"dynamodb:DescribeTimeToLive": true, "dynamodb:DescribeContinuousBackups": true, "dynamodb:ListTagsOfResource": true,
}

// access is what a data-plane request touches, for the condition keys.
type access struct {
	leadingKeys  []string
	attributes   []string
	hasAttrs     bool
	selectValue  string
	returnValues string
}

// parsedPolicies caches parsed resource policies by their text: a table's
// policy is parsed once, not on every request.
var parsedPolicies sync.Map // string → *policy.Document

func parsedPolicy(doc string) *policy.Document {
	if doc == "" {
		return nil
	}
	if d, ok := parsedPolicies.Load(doc); ok {
		return d.(*policy.Document)
	}
	d, err := policy.Parse(doc)
	if err != nil {
		return nil // stored policies were validated; an old unparsable one grants nothing
	}
	parsedPolicies.Store(doc, d)
	return d
}

// authorize checks action on table t (index: one of its indexes, label: one
// of its streams) for the caller in ctx.
func (e *Engine) authorize(ctx context.Context, action string, t *tableMeta, index, label string, acc *access) error {
	c := callerFrom(ctx)
	if c == nil {
		return nil
	}
	resource := t.ARN()
	switch {
	case index != "":
		resource += "/index/" + index
	case label != "":
		resource += "/stream/" + label
	}
	var rp *policy.Document
	if c.Account == t.Account || crossAccountActions[action] {
		if p := t.policyOf(label); p.present() {
			rp = parsedPolicy(p.Doc)
		}
	}
	return c.decide(action, resource, rp, t.Account, acc)
}

// decide evaluates action on resource (owned by owner, with resource policy
// rp) for c.
func (c *Caller) decide(action, resource string, rp *policy.Document, owner string, acc *access) error {
	ctxKeys := map[string][]string{
		"aws:principalaccount": {c.Account},
		"aws:principalarn":     {c.PrincipalARN},
	}
	if c.SourceIP != "" {
		ctxKeys["aws:sourceip"] = []string{c.SourceIP}
	}
	if c.UserName != "" {
		ctxKeys["aws:username"] = []string{c.UserName}
	}
	if c.UserID != "" {
		ctxKeys["aws:userid"] = []string{c.UserID}
	}
	if acc != nil {
		if len(acc.leadingKeys) > 0 {
			ctxKeys["dynamodb:leadingkeys"] = acc.leadingKeys
		}
		if acc.hasAttrs {
			ctxKeys["dynamodb:attributes"] = acc.attributes
		}
		if acc.selectValue != "" {
			ctxKeys["dynamodb:select"] = []string{acc.selectValue}
		}
		if acc.returnValues != "" {
			ctxKeys["dynamodb:returnvalues"] = []string{acc.returnValues}
		}
	}
	req := policy.Request{Account: c.Account, Principal: c.ARN, Action: action, Resource: resource, Context: ctxKeys}
	res := policy.Evaluate(req, c.Policies, rp, owner)
	if res.Decision == policy.Allow {
		return nil
	}
	msg := "User: " + c.ARN + " is not authorized to perform: " + action + " on resource: " + resource
	if res.Decision == policy.ExplicitDeny {
		article := "a "
		if res.Kind == policy.IdentityBased {
			article = "an "
		}
		msg += " with an explicit deny in " + article + res.Kind.String() + " policy"
	} else {
		msg += " because no " + res.Kind.String() + " policy allows the " + action + " action"
	}
	return &api.Error{Code: CodeAccessDenied, Message: msg}
}

// Authorize checks action for the caller in ctx on the resource a request
// names: target is a TableName (name or ARN), a table or stream ARN, or
// empty for account-wide actions (ListTables…), whose resource is
// arn:…:table/*. The wire calls it for every operation the engine does
// not authorize itself (the item operations). A table that does not exist
// is checked against the identity policies alone, so the operation then
// fails as it would have (ResourceNotFoundException) or is refused.
func (e *Engine) Authorize(ctx context.Context, ns api.Namespace, action, target, index string) error {
	c := callerFrom(ctx)
	if c == nil {
		return nil
	}
	if target == "" {
		return c.decide(action, ns.TableARN("*"), nil, ns.Account, nil)
	}
	tns, name, label := ns, target, ""
	if strings.HasPrefix(target, "arn:") {
		a, err := parseARN(target)
		if err != nil {
			return nil // the operation reports the malformed ARN itself
		}
		tns, name, label = api.Namespace{Account: a.account, Region: a.region}, a.table, a.stream
		if a.index != "" {
			index = a.index
		}
	}
	e.rlockCatalog()
	t := e.lookup(tns, name, e.now())
	e.mu.RUnlock()
	if t == nil {
		resource := tns.TableARN(name)
		if label != "" {
			resource += "/stream/" + label
		} else if index != "" {
			resource += "/index/" + index
		}
		return c.decide(action, resource, nil, tns.Account, nil)
	}
	return e.authorize(ctx, action, t, index, label, nil)
}

// leadingKey is the dynamodb:LeadingKeys value of a partition key value:
// its string, number text or base64 bytes.
func leadingKey(v av.Value) string {
	if v.Type == av.TypeB {
		return base64.StdEncoding.EncodeToString([]byte(v.S))
	}
	return v.S
}

// itemAccess is the access of a request on the items (keys or whole
// items) of t.
func itemAccess(t *tableMeta, items ...av.Item) *access {
	acc := &access{}
	hk := t.hashKey().Name
	for _, it := range items {
		if v, ok := it[hk]; ok {
			acc.leadingKeys = appendUnique(acc.leadingKeys, leadingKey(v))
		}
	}
	return acc
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// projecting adds dynamodb:Attributes: the top-level attributes a read
// projects (none projected: the key is absent, as DynamoDB leaves it).
func (a *access) projecting(p *expr.Projection) *access {
	if p != nil {
		a.attributes, a.hasAttrs = p.TopLevel(), true
	}
	return a
}

// writing adds dynamodb:Attributes: the top-level attributes of the item a
// request writes.
func (a *access) writing(item av.Item) *access {
	a.hasAttrs = true
	for name := range item {
		a.attributes = append(a.attributes, name)
	}
	return a
}

// returning adds dynamodb:ReturnValues.
func (a *access) returning(rv *string) *access {
	a.returnValues = deref(rv)
	return a
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// missingTable is the error of an item operation whose table was not
// found: a caller who may not act on that table's ARN is refused
// (AccessDeniedException) rather than told whether it exists, as IAM
// decides before the table is looked up.
func (e *Engine) missingTable(ctx context.Context, ns api.Namespace, action, nameOrARN string, err error) error {
	if callerFrom(ctx) == nil {
		return err
	}
	var de *api.Error
	if !errors.As(err, &de) || de.Code != api.CodeResourceNotFound {
		return err
	}
	if aerr := e.Authorize(ctx, ns, action, nameOrARN, ""); aerr != nil {
		return aerr
	}
	return err
}

type pqCallerKey struct{}

// partiqlContext moves the caller aside for a PartiQL operation: its
// statements are authorized as IAM's PartiQL actions (pqTable), and the
// item operations that run them are not checked again.
func partiqlContext(ctx context.Context) context.Context {
	c := callerFrom(ctx)
	if c == nil {
		return ctx
	}
	return context.WithValue(context.WithValue(ctx, callerKey{}, (*Caller)(nil)), pqCallerKey{}, c)
}

// pqCallerContext is ctx with the PartiQL operation's caller back in place
// (nil when there is none).
func pqCallerContext(ctx context.Context) context.Context {
	c, _ := ctx.Value(pqCallerKey{}).(*Caller)
	if c == nil {
		return nil
	}
	return WithCaller(ctx, c)
}
