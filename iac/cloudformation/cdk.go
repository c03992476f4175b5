package cloudformation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/extenddb/extenddb/iac/spec"
)

// cdkManifest is the part of cdk.out/manifest.json that locates stacks.
type cdkManifest struct {
	Artifacts map[string]struct {
		Type        string `json:"type"`
		Environment string `json:"environment"`
		Properties  struct {
			TemplateFile string `json:"templateFile"`
			StackName    string `json:"stackName"`
		} `json:"properties"`
	} `json:"artifacts"`
}

// LoadCDK loads the stacks of a `cdk synth` output directory. Each stack
// deploys into its manifest environment (aws://account/region) unless the
// environment is unresolved, in which case opts decides.
func LoadCDK(dir string, opts spec.Options) ([]spec.TableSpec, spec.Diagnostics) {
	var diags spec.Diagnostics
	manifestPath := filepath.Join(dir, "manifest.json")
	type stackFile struct{ file, name, account, region string }
	var stacks []stackFile
	if data, err := os.ReadFile(manifestPath); err == nil {
		var m cdkManifest
		if err := json.Unmarshal(data, &m); err != nil {
			diags.Errorf(spec.Pos{File: manifestPath, Line: 1, Col: 1}, "cdk manifest: %v", err)
			return nil, diags
		}
		for id, a := range m.Artifacts {
			if a.Type != "aws:cloudformation:stack" || a.Properties.TemplateFile == "" {
				continue
			}
			sf := stackFile{file: filepath.Join(dir, a.Properties.TemplateFile), name: a.Properties.StackName}
			if sf.name == "" {
				sf.name = id
			}
			if env, ok := strings.CutPrefix(a.Environment, "aws://"); ok {
				acct, region, _ := strings.Cut(env, "/")
				if acct != "unknown-account" && !strings.HasPrefix(acct, "${") {
					sf.account = acct
				}
				if region != "unknown-region" && !strings.HasPrefix(region, "${") {
					sf.region = region
				}
			}
			stacks = append(stacks, sf)
		}
	} else {
		matches, _ := filepath.Glob(filepath.Join(dir, "*.template.json"))
		for _, f := range matches {
			stacks = append(stacks, stackFile{file: f, name: DefaultStackName(f)})
		}
	}
	sort.Slice(stacks, func(i, j int) bool { return stacks[i].file < stacks[j].file })
	if len(stacks) == 0 {
		diags.Errorf(spec.Pos{File: dir}, "no CloudFormation stacks in cdk output")
		return nil, diags
	}
	var specs []spec.TableSpec
	for _, sf := range stacks {
		// The environment the app declares wins; the options fill in
		// what the manifest leaves unresolved.
		o := opts
		if o.StackName == "" {
			o.StackName = sf.name
		}
		if sf.account != "" {
			o.StackAccount = sf.account
		}
		if sf.region != "" {
			o.StackRegion = sf.region
		}
		got, d := LoadFile(sf.file, o)
		specs = append(specs, got...)
		diags = append(diags, d...)
	}
	return specs, diags
}
