package emulator

// Resource-based policies: PutResourcePolicy, GetResourcePolicy,
// DeleteResourcePolicy on tables and streams, and CreateTable's
// ResourcePolicy. Policies are stored, versioned and validated as IAM
// documents (package policy); with --auth=sigv4 authz.go evaluates them.

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/policy"
)

const (
	// maxPolicyBytes is DynamoDB's 20 KB limit, whitespace included.
	maxPolicyBytes = 20 * 1024
	// noPolicyRevision as ExpectedRevisionId means "only if none exists".
	noPolicyRevision = "NO_POLICY"
)

// resourcePolicy is the policy of a table or of one of its streams. After
// a delete it stays with Doc empty, keeping the last revision (so the next
// one is greater) and the time of the change (for the update block).
type resourcePolicy struct {
	Doc      string    `json:"doc,omitempty"`
	Revision string    `json:"rev,omitempty"`
	Updated  time.Time `json:"at,omitzero"`
}

func (p *resourcePolicy) present() bool { return p != nil && p.Doc != "" }

// policyOf returns the policy slot of table t (label "") or of its stream
// label; nil when none was ever set. A table stored before policies were
// versioned has its CreateTable policy in ResourcePolicy.
func (t *tableMeta) policyOf(label string) *resourcePolicy {
	if label != "" {
		return t.StreamPolicies[label]
	}
	if t.Policy == nil && t.ResourcePolicy != "" {
		return &resourcePolicy{Doc: t.ResourcePolicy, Revision: strconv.FormatInt(t.CreatedAt.UnixMilli(), 10), Updated: t.CreatedAt}
	}
	return t.Policy
}

// setPolicyOf stores p as the policy of t or of its stream label.
func (t *tableMeta) setPolicyOf(label string, p *resourcePolicy) {
	if label != "" {
		if t.StreamPolicies == nil {
			t.StreamPolicies = map[string]*resourcePolicy{}
		}
		t.StreamPolicies[label] = p
		return
	}
	t.Policy, t.ResourcePolicy = p, ""
}

// nextRevision is a numeric string like an epoch-ms value, greater than
// prev so that later revisions compare greater.
func nextRevision(prev *resourcePolicy, now time.Time) string {
	r := now.UnixMilli()
	if prev != nil {
		if p, err := strconv.ParseInt(prev.Revision, 10, 64); err == nil && p >= r {
			r = p + 1
		}
	}
	return strconv.FormatInt(r, 10)
}

// checkPolicyDocument applies the size limit and the IAM grammar.
func checkPolicyDocument(doc string) (*policy.Document, error) {
	if len(doc) > maxPolicyBytes {
		return nil, api.Validation("Resource-based policy size %d bytes exceeds the maximum allowed size of %d bytes", len(doc), maxPolicyBytes)
	}
	d, err := policy.Parse(doc)
	var pe *policy.Error
	if errors.As(err, &pe) {
		return nil, api.Validation("%s", pe.Message)
	}
	return d, err
}

func policyShape(v *shape.Violations, arn *string, expected *string) {
	resourceArnShape(v, arn)
	if expected != nil {
		v.Length("expectedRevisionId", *expected, 1, 255)
	}
}

func policyNotFound(arn string) error {
	return api.NewError(api.CodePolicyNotFound, "Resource-based policy not found for the provided ResourceArn: %s", arn)
}

// checkExpected applies ExpectedRevisionId to the current policy.
func checkExpected(t *tableMeta, arn string, cur *resourcePolicy, expected *string) error {
	if expected == nil {
		return nil
	}
	switch {
	case *expected == noPolicyRevision:
		if cur.present() {
			return api.NewError(api.CodePolicyNotFound, "Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for table %s, but a policy exists with revision id %s.", t.Name, cur.Revision)
		}
	case !cur.present():
		return policyNotFound(arn)
	case *expected != cur.Revision:
		return api.NewError(api.CodePolicyNotFound, "Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id %s, but the policy associated to target table %s has revision id %s.", *expected, t.Name, cur.Revision)
	}
	return nil
}

// policyTarget resolves a ResourceArn to its namespace, table name and, for
// a stream ARN, the stream's label, checking that the stream exists. It
// takes no engine lock for long: the caller looks the table up again under
// e.mu.
func (e *Engine) policyTarget(ns api.Namespace, arn string, now time.Time) (api.Namespace, string, string, error) {
	if !strings.HasPrefix(arn, "arn:") {
		return ns, "", "", shape.InvalidParam("ARNs must start with 'arn:': %s", arn)
	}
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[2] != "dynamodb" {
		return ns, "", "", shape.InvalidParam("Provided Arn is not a DynamoDB resource arn: %s", arn)
	}
	a, err := parseARN(arn)
	if err != nil || a.index != "" {
		return ns, "", "", shape.InvalidParam("Invalid resource arn provided, only table or stream is accepted. Provided resource arn: %s", arn)
	}
	if a.region != ns.Region || a.partition != ns.Partition() {
		return ns, "", "", api.Validation("Invalid TableArn: Invalid ResourceArn provided as input %s", arn)
	}
	tns := api.Namespace{Account: a.account, Region: a.region}
	if a.stream == "" {
		return tns, a.table, "", nil
	}
	if err := e.checkStream(tns, arn, now); err != nil {
		return ns, "", "", err
	}
	return tns, a.table, a.stream, nil
}

// policyTable looks the target's table up under e.mu.
func (e *Engine) policyTable(tns api.Namespace, name, label, arn string, now time.Time) (*tableMeta, error) {
	t := e.lookup(tns, name, now)
	if t == nil {
		if label != "" {
			return nil, streamNotFound(arn)
		}
		return nil, api.TableNotFound(name)
	}
	return t, nil
}

// policyUpdateBlocked refuses a change within Options.PolicyUpdateBlock of
// the previous one, as DynamoDB blocks updates for 15 seconds.
func (e *Engine) policyUpdateBlocked(cur *resourcePolicy, arn string, now time.Time) error {
	if d := e.opts.PolicyUpdateBlock; d > 0 && cur != nil && !cur.Updated.IsZero() && now.Before(cur.Updated.Add(d)) {
		return api.NewError(api.CodeResourceInUse, "Attempt to change a resource which is still in use: the resource-based policy of %s was changed less than %s ago", arn, d)
	}
	return nil
}

// PutResourcePolicy attaches a policy to a table or stream.
func (e *Engine) PutResourcePolicy(ctx context.Context, ns api.Namespace, in *api.PutResourcePolicyInput) (*api.PutResourcePolicyOutput, error) {
	if in == nil {
		in = &api.PutResourcePolicyInput{}
	}
	var v shape.Violations
	policyShape(&v, in.ResourceArn, in.ExpectedRevisionId)
	if in.Policy == nil {
		v.Null("policy")
	} else {
		v.Length("policy", *in.Policy, 1, maxPolicyBytes)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	arn := *in.ResourceArn
	now := e.now()
	tns, name, label, err := e.policyTarget(ns, arn, now)
	if err != nil {
		return nil, err
	}
	doc, err := checkPolicyDocument(*in.Policy)
	if err != nil {
		return nil, err
	}
	e.lockCatalog()
	defer e.unlockCatalog()
	t, err := e.policyTable(tns, name, label, arn, now)
	if err != nil {
		return nil, err
	}
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		return nil, inUse(t, s)
	}
	cur := t.policyOf(label)
	if err := checkExpected(t, arn, cur, in.ExpectedRevisionId); err != nil {
		return nil, err
	}
	if cur.present() && cur.Doc == *in.Policy {
		// An identical Put changes nothing and keeps the revision.
		return &api.PutResourcePolicyOutput{RevisionId: cur.Revision}, nil
	}
	if err := e.policyUpdateBlocked(cur, arn, now); err != nil {
		return nil, err
	}
	self := policy.Request{Account: ns.Account, Action: "dynamodb:PutResourcePolicy", Resource: arn}
	if doc.Denies(self) && (in.ConfirmRemoveSelfResourceAccess == nil || !*in.ConfirmRemoveSelfResourceAccess) {
		return nil, api.Validation("The policy denies the caller permission to change the resource-based policy of %s in the future. Set ConfirmRemoveSelfResourceAccess to true to confirm.", arn)
	}
	np := &resourcePolicy{Doc: *in.Policy, Revision: nextRevision(cur, now), Updated: now}
	nt := t.clone()
	nt.setPolicyOf(label, np)
	if err := e.saveTable(nt); err != nil {
		return nil, internalError(err)
	}
	return &api.PutResourcePolicyOutput{RevisionId: np.Revision}, nil
}

// GetResourcePolicy returns the policy of a table or stream.
func (e *Engine) GetResourcePolicy(ctx context.Context, ns api.Namespace, in *api.GetResourcePolicyInput) (*api.GetResourcePolicyOutput, error) {
	if in == nil {
		in = &api.GetResourcePolicyInput{}
	}
	var v shape.Violations
	policyShape(&v, in.ResourceArn, nil)
	if err := v.Err(); err != nil {
		return nil, err
	}
	arn := *in.ResourceArn
	now := e.now()
	tns, name, label, err := e.policyTarget(ns, arn, now)
	if err != nil {
		return nil, err
	}
	e.rlockCatalog()
	defer e.mu.RUnlock()
	t, err := e.policyTable(tns, name, label, arn, now)
	if err != nil {
		return nil, err
	}
	cur := t.policyOf(label)
	if !cur.present() {
		return nil, policyNotFound(arn)
	}
	return &api.GetResourcePolicyOutput{Policy: cur.Doc, RevisionId: cur.Revision}, nil
}

// DeleteResourcePolicy removes the policy of a table or stream; with no
// policy and no ExpectedRevisionId it succeeds with no RevisionId.
func (e *Engine) DeleteResourcePolicy(ctx context.Context, ns api.Namespace, in *api.DeleteResourcePolicyInput) (*api.DeleteResourcePolicyOutput, error) {
	if in == nil {
		in = &api.DeleteResourcePolicyInput{}
	}
	var v shape.Violations
	policyShape(&v, in.ResourceArn, in.ExpectedRevisionId)
	if err := v.Err(); err != nil {
		return nil, err
	}
	arn := *in.ResourceArn
	now := e.now()
	tns, name, label, err := e.policyTarget(ns, arn, now)
	if err != nil {
		return nil, err
	}
	e.lockCatalog()
	defer e.unlockCatalog()
	t, err := e.policyTable(tns, name, label, arn, now)
	if err != nil {
		return nil, err
	}
	if s := t.status(now); s == statusCreating || s == statusDeleting {
		return nil, inUse(t, s)
	}
	cur := t.policyOf(label)
	if err := checkExpected(t, arn, cur, in.ExpectedRevisionId); err != nil {
		return nil, err
	}
	if !cur.present() {
		return &api.DeleteResourcePolicyOutput{}, nil
	}
	if err := e.policyUpdateBlocked(cur, arn, now); err != nil {
		return nil, err
	}
	nt := t.clone()
	nt.setPolicyOf(label, &resourcePolicy{Revision: cur.Revision, Updated: now})
	if err := e.saveTable(nt); err != nil {
		return nil, internalError(err)
	}
	return &api.DeleteResourcePolicyOutput{RevisionId: cur.Revision}, nil
}
