package cloudformation

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/extenddb/extenddb/iac/spec"
	"go.yaml.in/yaml/v3"
)

// samConfigNames are the SAM CLI's project configuration files, in the
// order it looks for them
// (https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/serverless-sam-cli-config.html).
var samConfigNames = []string{"samconfig.toml", "samconfig.yaml", "samconfig.yml"}

// samDeploy is what `sam deploy` takes from a project's configuration:
// the default environment's deploy parameters over its global ones.
type samDeploy struct {
	file           string // the configuration file read
	template       string // template_file, resolved against the file's directory; "" for template.{yaml,yml,json}
	stackName      string
	region         string
	paramOverrides []string // parameter_overrides as KEY=VALUE
}

// readSAMConfig reads the SAM configuration file of dir, if it has one
// (nil, nil when it has none).
func readSAMConfig(dir string) (*samDeploy, error) {
	for _, name := range samConfigNames {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var doc map[string]any
		if strings.HasSuffix(name, ".toml") {
			_, err = toml.Decode(string(data), &doc)
		} else {
			err = yaml.Unmarshal(data, &doc)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return samDeployOf(path, doc)
	}
	return nil, nil
}

// samDeployOf reads the default environment's global, then deploy,
// parameters (the command's own win, as the SAM CLI reads them).
func samDeployOf(path string, doc map[string]any) (*samDeploy, error) {
	d := &samDeploy{file: path}
	env, _ := doc["default"].(map[string]any)
	for _, command := range []string{"global", "deploy"} {
		cmd, _ := env[command].(map[string]any)
		params, _ := cmd["parameters"].(map[string]any)
		for k, v := range params {
			switch k {
			case "stack_name", "region", "template_file", "template":
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("%s: default.%s.parameters.%s: want a string", path, command, k)
				}
				switch k {
				case "stack_name":
					d.stackName = s
				case "region":
					d.region = s
				default:
					d.template = filepath.Join(filepath.Dir(path), s)
				}
			case "parameter_overrides":
				overrides, err := samOverrides(v)
				if err != nil {
					return nil, fmt.Errorf("%s: default.%s.parameters.parameter_overrides: %w", path, command, err)
				}
				d.paramOverrides = overrides
			}
		}
	}
	return d, nil
}

// samOverrides reads parameter_overrides: a string of KEY=VALUE pairs
// separated by spaces (a value may be double-quoted) or a list of them;
// a pair may also be written ParameterKey=KEY,ParameterValue=VALUE.
func samOverrides(v any) ([]string, error) {
	var pairs []string
	switch v := v.(type) {
	case string:
		pairs = splitQuoted(v)
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, errors.New("want strings")
			}
			pairs = append(pairs, splitQuoted(s)...)
		}
	default:
		return nil, errors.New("want a string or a list of strings")
	}
	out := make([]string, 0, len(pairs))
	for _, p := range pairs {
		if rest, ok := strings.CutPrefix(p, "ParameterKey="); ok {
			k, val, ok := strings.Cut(rest, ",ParameterValue=")
			if !ok {
				return nil, fmt.Errorf("%q: want ParameterKey=KEY,ParameterValue=VALUE", p)
			}
			p = k + "=" + val
		}
		if k, _, ok := strings.Cut(p, "="); !ok || k == "" {
			return nil, fmt.Errorf("%q: want KEY=VALUE", p)
		}
		out = append(out, p)
	}
	return out, nil
}

// splitQuoted splits s at spaces outside double quotes and drops the
// quotes.
func splitQuoted(s string) []string {
	var out []string
	var b strings.Builder
	quoted, started := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, started = !quoted, true
		case (r == ' ' || r == '\t' || r == '\n') && !quoted:
			if started {
				out = append(out, b.String())
				b.Reset()
				started = false
			}
		default:
			b.WriteRune(r)
			started = true
		}
	}
	if started {
		out = append(out, b.String())
	}
	return out
}

// deploys reports whether `sam deploy` with this configuration deploys
// the template at path: its template_file, or else template.yaml,
// template.yml or template.json beside the configuration.
func (d *samDeploy) deploys(path string) bool {
	if d.template != "" {
		return filepath.Clean(path) == filepath.Clean(d.template)
	}
	switch filepath.Base(path) {
	case "template.yaml", "template.yml", "template.json":
		return filepath.Dir(filepath.Clean(path)) == filepath.Dir(d.file)
	}
	return false
}

// withSAMConfig fills what the options leave unset of the stack's name,
// Region and parameters from the SAM configuration beside the template
// `sam deploy` would deploy: the flags win, as they do over samconfig.
func withSAMConfig(file string, opts spec.Options, diags *spec.Diagnostics) (spec.Options, string) {
	d, err := readSAMConfig(filepath.Dir(file))
	if err != nil {
		diags.Errorf(spec.Pos{File: file}, "%v", err)
		return opts, ""
	}
	if d == nil || !d.deploys(file) {
		return opts, ""
	}
	if opts.StackName == "" {
		opts.StackName = d.stackName
	}
	if opts.StackRegion == "" {
		opts.StackRegion = d.region
	}
	if len(d.paramOverrides) > 0 {
		// --param (later) overrides a samconfig value of the same key.
		opts.Params = append(append([]string(nil), d.paramOverrides...), opts.Params...)
	}
	return opts, filepath.Base(d.file)
}
