package terraform

import (
	"fmt"
	"slices"
	"strings"

	"github.com/extenddb/extenddb/iac/spec"
	"github.com/hashicorp/hcl/v2"
)

// providers evaluates this module's provider "aws" blocks on top of the
// configurations the caller passed down.
func (in *instance) providers(ctx *hcl.EvalContext, diags *spec.Diagnostics) map[string]*providerCfg {
	out := map[string]*providerCfg{}
	for k, v := range in.inherited {
		out[k] = v
	}
	for _, b := range in.mod.providers {
		if b.Labels[0] != "aws" {
			continue
		}
		c, _, hd := b.Body.PartialContent(&hcl.BodySchema{
			Attributes: []hcl.AttributeSchema{{Name: "region"}, {Name: "alias"}, {Name: "allowed_account_ids"},
				{Name: "forbidden_account_ids"}, {Name: "access_key"}},
			Blocks: []hcl.BlockHeaderSchema{{Type: "default_tags"}, {Type: "assume_role"}},
		})
		*diags = append(*diags, spec.FromHCL(hd)...)
		r := &reader{ctx: ctx, diags: diags}
		p := &providerCfg{region: in.l.opts.Region()}
		if v := r.str(c.Attributes, "region"); v != nil {
			p.region = *v
		}
		roleAccount := ""
		for _, blk := range c.Blocks {
			switch blk.Type {
			case "default_tags":
				dc, _, hd := blk.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "tags"}}})
				*diags = append(*diags, spec.FromHCL(hd)...)
				p.defaultTags = r.strMap(dc.Attributes, "tags")
			case "assume_role":
				ac, _, hd := blk.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "role_arn"}}})
				*diags = append(*diags, spec.FromHCL(hd)...)
				if arn := r.str(ac.Attributes, "role_arn"); arn != nil {
					if parts := strings.Split(*arn, ":"); len(parts) >= 6 && parts[4] != "" {
						roleAccount = parts[4]
					}
				}
			}
		}
		key := "aws"
		if alias := r.str(c.Attributes, "alias"); alias != nil {
			key = "aws." + *alias
		}
		in.providerAccount(p, key, r, c.Attributes, roleAccount, spec.PosFromHCL(&b.DefRange))
		if _, dup := out[key]; dup && in.inherited[key] == nil {
			diags.Errorf(spec.PosFromHCL(&b.DefRange), "Duplicate provider configuration: a provider configuration for %q was already given", key)
		}
		out[key] = p
	}
	if out["aws"] == nil {
		// An implicit default provider: the Region of the environment and
		// options, the account of the environment's access key.
		p := &providerCfg{region: in.l.opts.Region()}
		key, _ := in.l.opts.Env("AWS_ACCESS_KEY_ID")
		var by string
		p.account, by, _ = in.l.opts.KeyAccount(key)
		if key != "" {
			p.accountFrom = "default provider, AWS_ACCESS_KEY_ID " + key + ": " + by
		} else {
			p.accountFrom = "default provider, no access key: " + by
		}
		out["aws"] = p
	}
	return out
}

// providerAccount sets p.account to the account `terraform apply` against
// ExtendDB acts in with the provider block name whose attributes are attrs:
// the account of the role of an assume_role block when its ARN names one
// (STS AssumeRole hands out that role's credentials); else the account of
// its access key (access_key, else AWS_ACCESS_KEY_ID) by the rule the
// server resolves a signed request's key with (spec.Options.KeyAccount).
// allowed_account_ids and forbidden_account_ids are then checked, as the
// provider checks them against STS GetCallerIdentity. A provider that names
// no key and no role cannot be resolved: it is in the first of
// allowed_account_ids, else the default account.
func (in *instance) providerAccount(p *providerCfg, name string, r *reader, attrs hcl.Attributes, roleAccount string, block spec.Pos) {
	opts := in.l.opts
	accessKey, from := "", ""
	if v := r.str(attrs, "access_key"); v != nil && *v != "" {
		accessKey, from = *v, "access_key"
	} else if v, ok := opts.Env("AWS_ACCESS_KEY_ID"); ok && v != "" {
		accessKey, from = v, "AWS_ACCESS_KEY_ID"
	}
	allowed := r.strList(attrs, "allowed_account_ids")
	var how string
	switch {
	case roleAccount != "":
		p.account, how = roleAccount, "the account of its assume_role role_arn"
		p.accountFrom = "provider " + name + ": the account of its assume_role role_arn"
	case accessKey != "":
		var by string
		var known bool
		p.account, by, known = opts.KeyAccount(accessKey)
		if !known {
			pos := block
			if a := attrs["access_key"]; a != nil && from == "access_key" {
				pos = spec.PosFromHCL(a.Expr.StartRange().Ptr())
			}
			r.diags.Errorf(pos, "provider %s: access key %s (%s) is not a key of --credentials: under --auth=sigv4 the server refuses requests signed with it, so terraform apply would fail", name, accessKey, from)
		}
		how = fmt.Sprintf("the account of its access key %s (%s)", accessKey, from)
		p.accountFrom = fmt.Sprintf("provider %s, %s %s: %s", name, from, accessKey, by)
	case len(allowed) > 0:
		p.account = allowed[0]
		p.accountFrom = "provider " + name + ", no access key: the first of allowed_account_ids"
		return
	default:
		var by string
		p.account, by, _ = opts.KeyAccount("")
		p.accountFrom = "provider " + name + ", no access key: " + by
		return
	}
	fix := ""
	if roleAccount == "" {
		fix = fmt.Sprintf("; map the key to an allowed account with --access-key-account %s=ACCOUNT, or use a 12-digit access key, which is that account", accessKey)
	}
	if len(allowed) > 0 && !slices.Contains(allowed, p.account) {
		a := attrs["allowed_account_ids"]
		r.diags.Errorf(spec.PosFromHCL(a.Expr.StartRange().Ptr()),
			"provider %s: AWS account ID not allowed: %s is %s, which allowed_account_ids %s does not list; terraform apply fails the same way%s",
			name, p.account, how, listOf(allowed), fix)
	}
	if forbidden := r.strList(attrs, "forbidden_account_ids"); slices.Contains(forbidden, p.account) {
		a := attrs["forbidden_account_ids"]
		r.diags.Errorf(spec.PosFromHCL(a.Expr.StartRange().Ptr()),
			"provider %s: AWS account ID not allowed: %s is %s, which forbidden_account_ids lists; terraform apply fails the same way%s",
			name, p.account, how, fix)
	}
}

// listOf renders account IDs as HCL writes a list: ["1", "2"].
func listOf(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
