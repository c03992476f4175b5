package cloudformation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/iac/spec"
)

const samTemplate = `Transform: AWS::Serverless-2016-10-31
Parameters:
  Env:
    Type: String
Resources:
  Orders:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub "${Env}-orders"
` + keyProps + `  Events:
    Type: AWS::Serverless::SimpleTable
`

// samProject writes template and samconfig (named config) into a new
// directory and returns the template's path.
func samProject(t *testing.T, template, config, configText string) string {
	t.Helper()
	dir := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(dir, config), []byte(configText), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, template)
	if err := os.WriteFile(path, []byte(samTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func loadSAM(t *testing.T, path string, o spec.Options) ([]spec.TableSpec, spec.Diagnostics) {
	t.Helper()
	return LoadFile(path, o)
}

// TestSAMConfig: samconfig.toml (or .yaml) beside the template `sam
// deploy` deploys gives the stack's name, Region and parameter overrides
// as sam deploy takes them; the flags win over it.
func TestSAMConfig(t *testing.T) {
	const toml = `version = 0.1
[default.global.parameters]
region = "us-west-2"
stack_name = "global-name"

[default.deploy.parameters]
stack_name = "orders-app"
region = "eu-west-1"
parameter_overrides = "Env=\"prod\" Other=1"
`
	bare := spec.Options{Getenv: func(string) (string, bool) { return "", false }}
	path := samProject(t, "template.yaml", "samconfig.toml", toml)
	specs, diags := loadSAM(t, path, bare)
	if diags.HasErrors() || len(specs) != 2 {
		t.Fatalf("%d tables, %v", len(specs), diags.Error())
	}
	byName := map[string]spec.TableSpec{}
	for _, s := range specs {
		byName[s.Name()] = s
	}
	orders, ok := byName["prod-orders"]
	if !ok {
		t.Fatalf("no table prod-orders (parameter_overrides): %v", byName)
	}
	if orders.Region != "eu-west-1" || orders.Account != spec.DefaultAccount {
		t.Errorf("Region %s account %s, want eu-west-1 (deploy over global) in the default account", orders.Region, orders.Account)
	}
	if !strings.Contains(orders.AccountFrom, "samconfig.toml") {
		t.Errorf("AccountFrom %q does not name samconfig.toml", orders.AccountFrom)
	}
	var events string
	for n := range byName {
		if n != "prod-orders" {
			events = n
		}
	}
	if !strings.HasPrefix(events, "orders-app-Events-") {
		t.Errorf("SimpleTable named %q, want it after stack orders-app", events)
	}

	// The flags win over samconfig.
	o := bare
	o.StackName, o.StackRegion, o.Params = "cli", "ap-south-1", []string{"Env=dev"}
	specs, diags = loadSAM(t, path, o)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, s := range specs {
		if s.Region != "ap-south-1" || (s.Name() != "dev-orders" && !strings.HasPrefix(s.Name(), "cli-Events-")) {
			t.Errorf("with flags: %s in %s", s.Name(), s.Region)
		}
	}

	// samconfig.yaml, with ParameterKey= pairs in a list.
	yamlPath := samProject(t, "template.yml", "samconfig.yaml", `version: 0.1
default:
  deploy:
    parameters:
      stack_name: yaml-app
      region: sa-east-1
      parameter_overrides:
        - ParameterKey=Env,ParameterValue=qa
`)
	specs, diags = loadSAM(t, yamlPath, bare)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, s := range specs {
		if s.Region != "sa-east-1" || (s.Name() != "qa-orders" && !strings.HasPrefix(s.Name(), "yaml-app-Events-")) {
			t.Errorf("samconfig.yaml: %s in %s", s.Name(), s.Region)
		}
	}

	// A template sam deploy would not deploy keeps its own name; a
	// template_file points at it.
	other := samProject(t, "other.yaml", "samconfig.toml", toml)
	if _, diags = loadSAM(t, other, bare); !strings.Contains(diags.Error(), "Parameters: [Env] must have values") {
		t.Errorf("samconfig applied to a template sam deploy does not deploy: %v", diags.Error())
	}
	named := samProject(t, "other.yaml", "samconfig.toml", toml+"template_file = \"other.yaml\"\n")
	if specs, diags = loadSAM(t, named, bare); diags.HasErrors() || len(specs) != 2 {
		t.Errorf("template_file: %d tables, %v", len(specs), diags.Error())
	}

	// A samconfig that does not parse is an error at the file.
	broken := samProject(t, "template.yaml", "samconfig.toml", "[default.deploy.parameters\n")
	if _, diags = loadSAM(t, broken, bare); !diags.HasErrors() || !strings.Contains(diags.Error(), "samconfig.toml") {
		t.Errorf("broken samconfig.toml: %v", diags.Error())
	}
}
