package iac

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/extenddb/extenddb/iac/cloudformation"
	"github.com/extenddb/extenddb/iac/spec"
	"github.com/extenddb/extenddb/iac/terraform"
)

// Re-exported model types.
type (
	TableSpec   = spec.TableSpec
	Diagnostics = spec.Diagnostics
	Diagnostic  = spec.Diagnostic
	Options     = spec.Options
	Pos         = spec.Pos
)

// Load reads every path (a file or a directory) and returns the tables they
// declare. A directory holding *.tf or *.tf.json files is a Terraform root
// module; a directory with a CDK manifest.json is a cdk.out; any other
// directory is searched (not recursively) for templates. A .tf file loads
// its directory, as Terraform does. When the diagnostics hold an error, the
// specs must not be provisioned.
func Load(paths []string, opts Options) ([]TableSpec, Diagnostics) {
	var specs []TableSpec
	var diags Diagnostics
	for _, p := range paths {
		got, d := loadPath(p, opts)
		specs = append(specs, got...)
		diags = append(diags, d...)
	}
	diags = append(diags, checkDuplicates(specs)...)
	if diags.HasErrors() {
		return nil, diags
	}
	return specs, diags
}

func loadPath(path string, opts Options) ([]TableSpec, Diagnostics) {
	var diags Diagnostics
	st, err := os.Stat(path)
	if err != nil {
		diags.Errorf(Pos{File: path}, "%v", err)
		return nil, diags
	}
	if !st.IsDir() {
		switch {
		case strings.HasSuffix(path, ".tf"), strings.HasSuffix(path, ".tf.json"):
			return terraform.LoadDir(filepath.Dir(path), opts)
		case strings.HasSuffix(path, ".tfvars"), strings.HasSuffix(path, ".tfvars.json"):
			diags.Errorf(Pos{File: path}, "a variables file is not a configuration; pass it with --var-file and load its directory")
			return nil, diags
		}
		data, err := os.ReadFile(path)
		if err != nil {
			diags.Errorf(Pos{File: path}, "%v", err)
			return nil, diags
		}
		if !cloudformation.LooksLikeTemplate(data) {
			diags.Errorf(Pos{File: path, Line: 1, Col: 1}, "not a CloudFormation template (no AWSTemplateFormatVersion or Resources) nor a Terraform file")
			return nil, diags
		}
		return cloudformation.Load(path, data, opts)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		diags.Errorf(Pos{File: path}, "%v", err)
		return nil, diags
	}
	var files []string
	hasTF, hasManifest := false, false
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		switch {
		case strings.HasSuffix(name, ".tf"), strings.HasSuffix(name, ".tf.json"):
			hasTF = true
		case name == "manifest.json":
			hasManifest = true
		}
		files = append(files, name)
	}
	switch {
	case hasTF:
		return terraform.LoadDir(path, opts)
	case hasManifest:
		return cloudformation.LoadCDK(path, opts)
	}
	sort.Strings(files)
	var specs []TableSpec
	found := false
	for _, name := range files {
		switch strings.ToLower(filepath.Ext(name)) {
		case ".json", ".yaml", ".yml", ".template":
		default:
			continue
		}
		full := filepath.Join(path, name)
		data, err := os.ReadFile(full)
		if err != nil {
			diags.Errorf(Pos{File: full}, "%v", err)
			continue
		}
		if !cloudformation.LooksLikeTemplate(data) {
			continue
		}
		found = true
		got, d := cloudformation.Load(full, data, opts)
		specs = append(specs, got...)
		diags = append(diags, d...)
	}
	if !found {
		diags.Errorf(Pos{File: path}, "no Terraform configuration, CloudFormation template or cdk.out found")
	}
	return specs, diags
}

// checkDuplicates reports a table declared twice in one namespace: the
// second declaration would silently reconcile the first.
func checkDuplicates(specs []TableSpec) Diagnostics {
	var diags Diagnostics
	seen := map[string]Pos{}
	for _, s := range specs {
		key := s.Account + "\x00" + s.Region + "\x00" + s.Name()
		if first, ok := seen[key]; ok {
			diags.Errorf(s.Pos, "table %s in account %s, Region %s is already declared at %s", s.Name(), s.Account, s.Region, first)
			continue
		}
		seen[key] = s.Pos
	}
	return diags
}

// Describe renders a spec for `extenddb validate`: name, keys, billing,
// throughput or caps, indexes, stream, TTL, PITR, Contributor Insights,
// Kinesis destination, tags, resource policies and ARN.
func Describe(s *TableSpec) string {
	var b strings.Builder
	c := &s.Create
	fmt.Fprintf(&b, "table %s\n", s.Name())
	fmt.Fprintf(&b, "  arn:        %s\n", s.ARN())
	fmt.Fprintf(&b, "  declared:   %s (%s)\n", s.Pos, s.Source)
	if s.AccountFrom != "" {
		fmt.Fprintf(&b, "  account:    %s, Region %s (%s)\n", s.Account, s.Region, s.AccountFrom)
	} else {
		fmt.Fprintf(&b, "  account:    %s, Region %s\n", s.Account, s.Region)
	}
	fmt.Fprintf(&b, "  keys:       %s\n", keys(c.KeySchema, c.AttributeDefinitions))
	billing := "PROVISIONED"
	if c.BillingMode != nil {
		billing = *c.BillingMode
	}
	fmt.Fprintf(&b, "  billing:    %s%s\n", billing, capacity(c.ProvisionedThroughput, c.OnDemandThroughput))
	if w := c.WarmThroughput; w != nil {
		fmt.Fprintf(&b, "  warm:       read %s/s, write %s/s\n", num(w.ReadUnitsPerSecond), num(w.WriteUnitsPerSecond))
	}
	for _, g := range c.GlobalSecondaryIndexes {
		fmt.Fprintf(&b, "  gsi:        %s %s %s%s\n", str(g.IndexName), keys(g.KeySchema, c.AttributeDefinitions), projection(g.Projection), capacity(g.ProvisionedThroughput, g.OnDemandThroughput))
	}
	for _, l := range c.LocalSecondaryIndexes {
		fmt.Fprintf(&b, "  lsi:        %s %s %s\n", str(l.IndexName), keys(l.KeySchema, c.AttributeDefinitions), projection(l.Projection))
	}
	for _, v := range c.VectorIndexes {
		fmt.Fprintf(&b, "  vector:     %s\n", vectorLine(v))
	}
	if st := c.StreamSpecification; st != nil && st.StreamEnabled != nil && *st.StreamEnabled {
		fmt.Fprintf(&b, "  stream:     %s\n", str(st.StreamViewType))
	}
	if t := s.TTL; t != nil && t.Enabled != nil && *t.Enabled {
		fmt.Fprintf(&b, "  ttl:        %s\n", str(t.AttributeName))
	}
	if p := s.PITR; p != nil && p.PointInTimeRecoveryEnabled != nil && *p.PointInTimeRecoveryEnabled {
		fmt.Fprintf(&b, "  pitr:       enabled\n")
	}
	if len(s.Insights) > 0 {
		names := make([]string, 0, len(s.Insights))
		for k := range s.Insights {
			names = append(names, k)
		}
		sort.Strings(names)
		var parts []string
		for _, k := range names {
			v, what := s.Insights[k], "table"
			if k != "" {
				what = "index " + k
			}
			switch {
			case !v.Enabled:
				what += " off"
			case v.Mode != nil:
				what += " " + *v.Mode
			}
			parts = append(parts, what)
		}
		fmt.Fprintf(&b, "  insights:   %s\n", strings.Join(parts, ", "))
	}
	if k := s.Kinesis; k != nil {
		prec := k.Precision
		if prec == "" {
			prec = "MILLISECOND"
		}
		fmt.Fprintf(&b, "  kinesis:    %s (%s)\n", k.StreamArn, prec)
	}
	if c.TableClass != nil {
		fmt.Fprintf(&b, "  class:      %s\n", *c.TableClass)
	}
	if c.DeletionProtectionEnabled != nil && *c.DeletionProtectionEnabled {
		fmt.Fprintf(&b, "  protection: deletion protection enabled\n")
	}
	if len(s.Replicas) > 0 {
		fmt.Fprintf(&b, "  replicas:   %s\n", strings.Join(s.Replicas, ", "))
	}
	if p := s.DisassociationProtection; p != nil {
		state := "enabled"
		if !*p {
			state = "disabled"
		}
		fmt.Fprintf(&b, "  protection: disassociation protection %s\n", state)
	}
	if im := s.Import; im != nil && im.S3BucketSource != nil {
		fmt.Fprintf(&b, "  import:     %s from s3://%s/%s (%s)\n", str(im.InputFormat), str(im.S3BucketSource.S3Bucket),
			derefOr(im.S3BucketSource.S3KeyPrefix, ""), derefOr(im.InputCompressionType, "NONE"))
	}
	if len(c.Tags) > 0 {
		var parts []string
		for _, t := range c.Tags {
			parts = append(parts, str(t.Key)+"="+str(t.Value))
		}
		fmt.Fprintf(&b, "  tags:       %s\n", strings.Join(parts, ", "))
	}
	if c.ResourcePolicy != nil {
		fmt.Fprintf(&b, "  policy:     %d bytes\n", len(*c.ResourcePolicy))
	}
	if s.StreamPolicy != nil {
		fmt.Fprintf(&b, "  stream policy: %d bytes\n", len(*s.StreamPolicy))
	}
	if len(s.Items) > 0 {
		fmt.Fprintf(&b, "  seed items: %d\n", len(s.Items))
	}
	return b.String()
}
