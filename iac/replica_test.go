package iac

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/iac/spec"
)

// TestReplicasBecomeLinked: Terraform's replica {} and CloudFormation's
// GlobalTable Replicas become one global table (UpdateTable
// ReplicaUpdates from the home Region), whose writes replicate; a reload
// changes nothing, even where adding the replica turned on a stream the
// declaration leaves out.
func TestReplicasBecomeLinked(t *testing.T) {
	for _, c := range []struct{ file, src, home, other string }{
		{"main.tf", `
provider "aws" { region = "us-east-1" }
resource "aws_dynamodb_table" "g" {
  name             = "linked"
  billing_mode     = "PAY_PER_REQUEST"
  hash_key         = "pk"
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
  attribute {
    name = "pk"
    type = "S"
  }
  replica {
    region_name                 = "eu-west-1"
    deletion_protection_enabled = true
  }
}
`, "us-east-1", "eu-west-1"},
		{"nostream.tf", `
provider "aws" { region = "us-east-1" }
resource "aws_dynamodb_table" "g" {
  name         = "linked"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "pk"
  attribute {
    name = "pk"
    type = "S"
  }
  replica {
    region_name                 = "eu-west-1"
    deletion_protection_enabled = true
  }
}
`, "us-east-1", "eu-west-1"},
		{"t.yaml", `
Resources:
  G:
    Type: AWS::DynamoDB::GlobalTable
    Properties:
      TableName: linked
      BillingMode: PAY_PER_REQUEST
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      Replicas:
        - Region: eu-west-1
          DeletionProtectionEnabled: true
        - Region: us-east-1
`, "us-east-1", "eu-west-1"},
	} {
		t.Run(c.file, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, map[string]string{c.file: c.src})
			eng := newEngine(t)
			specs := mustLoad(t, []string{dir}, Options{StackRegion: c.home, DefaultRegion: c.home, Getenv: noEnv})
			ctx := context.Background()
			if d := Provision(ctx, eng, specs); len(d.Errs()) > 0 {
				t.Fatal(diagText(d))
			}
			home := api.Namespace{Account: specs[0].Account, Region: c.home}
			other := api.Namespace{Account: specs[0].Account, Region: c.other}
			for _, ns := range []api.Namespace{home, other} {
				out, err := eng.DescribeTable(ctx, ns, &api.DescribeTableInput{TableName: spec.Str("linked")})
				if err != nil {
					t.Fatal(err)
				}
				if out.Table.GlobalTableVersion != "2019.11.21" || len(out.Table.Replicas) != 1 {
					t.Errorf("%s: %q %+v, want a global table", ns.Region, out.Table.GlobalTableVersion, out.Table.Replicas)
				}
				if want := ns == other; out.Table.DeletionProtectionEnabled != want {
					t.Errorf("%s: deletion protection %v, want %v", ns.Region, out.Table.DeletionProtectionEnabled, want)
				}
			}
			if _, err := eng.PutItem(ctx, home, &api.PutItemInput{TableName: spec.Str("linked"), Item: av.Item{"pk": {Type: av.TypeS, S: "a"}}}); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(10 * time.Second); ; {
				out, err := eng.GetItem(ctx, other, &api.GetItemInput{TableName: spec.Str("linked"), Key: av.Item{"pk": {Type: av.TypeS, S: "a"}}})
				if err != nil {
					t.Fatal(err)
				}
				if out.Item != nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the write in the home Region never reached the replica")
				}
				time.Sleep(10 * time.Millisecond)
			}
			outs, d := ProvisionWith(ctx, eng, mustLoad(t, []string{dir}, Options{StackRegion: c.home, DefaultRegion: c.home, Getenv: noEnv}), ProvisionOptions{})
			if len(d.Errs()) > 0 {
				t.Fatal(diagText(d))
			}
			for _, o := range outs {
				if o.Action != Unchanged {
					t.Errorf("reload: %s in %s %s", o.Spec.Name(), o.Spec.Region, o.Action)
				}
			}
		})
	}
}

// TestReplicaDisassociationProtection: CloudFormation's
// Replicas[].DisassociationProtectionEnabled is each replica's protection
// (on when left out); a reload with the same value changes nothing, one
// with another value updates that replica.
func TestReplicaDisassociationProtection(t *testing.T) {
	tmpl := func(protect string) string {
		return `
Resources:
  G:
    Type: AWS::DynamoDB::GlobalTable
    Properties:
      TableName: guarded
      BillingMode: PAY_PER_REQUEST
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
      AttributeDefinitions: [{AttributeName: pk, AttributeType: S}]
      KeySchema: [{AttributeName: pk, KeyType: HASH}]
      Replicas:
        - Region: us-east-1
        - Region: eu-west-1
          DisassociationProtectionEnabled: ` + protect + `
`
	}
	dir := t.TempDir()
	write(t, dir, map[string]string{"t.yaml": tmpl("false")})
	eng := newEngine(t)
	opts := Options{StackRegion: "us-east-1", DefaultRegion: "us-east-1", Getenv: noEnv}
	ctx := context.Background()
	account := ""
	provision := func() []Outcome {
		t.Helper()
		specs := mustLoad(t, []string{dir}, opts)
		account = specs[0].Account
		outs, d := ProvisionWith(ctx, eng, specs, ProvisionOptions{})
		if len(d.Errs()) > 0 {
			t.Fatal(diagText(d))
		}
		return outs
	}
	protection := func(region string) string {
		t.Helper()
		out, err := eng.DescribeTable(ctx, api.Namespace{Account: account, Region: region}, &api.DescribeTableInput{TableName: spec.Str("guarded")})
		if err != nil {
			t.Fatal(err)
		}
		if p := out.Table.DisassociationProtectionEnabled; p != nil {
			return map[bool]string{true: "true", false: "false"}[*p]
		}
		return "<absent>"
	}
	for _, s := range mustLoad(t, []string{dir}, opts) {
		want := map[bool]string{true: "disassociation protection disabled", false: ""}[s.Region == "eu-west-1"]
		if got := Describe(&s); want != "" && !strings.Contains(got, want) || want == "" && strings.Contains(got, "disassociation") {
			t.Errorf("validate's description of %s:\n%s", s.Region, got)
		}
	}
	provision()
	if h, r := protection("us-east-1"), protection("eu-west-1"); h != "true" || r != "false" {
		t.Fatalf("after loading: us-east-1 %s, eu-west-1 %s; want true, false", h, r)
	}
	for _, o := range provision() {
		if o.Action != Unchanged {
			t.Errorf("reload: %s in %s %s", o.Spec.Name(), o.Spec.Region, o.Action)
		}
	}
	write(t, dir, map[string]string{"t.yaml": tmpl("true")})
	for _, o := range provision() {
		if want := map[bool]string{true: Updated, false: Unchanged}[o.Spec.Region == "eu-west-1"]; o.Action != want {
			t.Errorf("reload with protection on: %s in %s %s, want %s", o.Spec.Name(), o.Spec.Region, o.Action, want)
		}
	}
	if r := protection("eu-west-1"); r != "true" {
		t.Errorf("eu-west-1 after the reload: %s, want true", r)
	}
}
