package cloudformation

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/iac/spec"
)

// Resource types that declare tables.
const (
	typeTable       = "AWS::DynamoDB::Table"
	typeGlobalTable = "AWS::DynamoDB::GlobalTable"
	typeSimpleTable = "AWS::Serverless::SimpleTable"
)

// IsTemplate reports whether data looks like a CloudFormation template: a
// mapping with AWSTemplateFormatVersion or Resources at the top.
func IsTemplate(data []byte) bool {
	n, diags := parse("", data)
	if diags.HasErrors() || n == nil || n.k != kMap {
		return false
	}
	return n.get("AWSTemplateFormatVersion") != nil || n.get("Resources") != nil
}

// LooksLikeTemplate is IsTemplate, but also true for a file that does not
// parse yet mentions a template's keys, so a broken template is reported
// instead of skipped.
func LooksLikeTemplate(data []byte) bool {
	if IsTemplate(data) {
		return true
	}
	if _, diags := parse("", data); !diags.HasErrors() {
		return false
	}
	s := string(data)
	return strings.Contains(s, "AWSTemplateFormatVersion") || strings.Contains(s, "Resources")
}

// LoadFile loads the template at path.
func LoadFile(path string, opts spec.Options) ([]spec.TableSpec, spec.Diagnostics) {
	data, err := os.ReadFile(path)
	if err != nil {
		var diags spec.Diagnostics
		diags.Errorf(spec.Pos{File: path}, "%v", err)
		return nil, diags
	}
	return Load(path, data, opts)
}

// DefaultStackName is the template's file name without its extensions
// (".template.json" included, as cdk.out names them).
func DefaultStackName(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".template.json", ".template.yaml", ".template.yml", ".template", ".json", ".yaml", ".yml"} {
		if strings.HasSuffix(base, ext) && len(base) > len(ext) {
			return base[:len(base)-len(ext)]
		}
	}
	return base
}

// Load evaluates one template as a stack deployed into opts' stack
// account and Region and returns its tables. A template with any error
// yields no tables.
func Load(file string, data []byte, opts spec.Options) ([]spec.TableSpec, spec.Diagnostics) {
	root, diags := parse(file, data)
	if diags.HasErrors() {
		return nil, diags
	}
	if root.k != kMap {
		diags.Errorf(root.pos, "Template format error: a template must be a mapping")
		return nil, diags
	}
	opts, samFile := withSAMConfig(file, opts, &diags)
	s := &stack{
		file:      file,
		name:      opts.StackName,
		account:   opts.StackAccount,
		region:    opts.StackRegion,
		params:    map[string]*node{},
		condVals:  map[string]bool{},
		condState: map[string]uint8{},
		resources: map[string]*resource{},
		exports:   opts.Exports,
	}
	if s.name == "" {
		s.name = DefaultStackName(file)
	}
	stackFrom := "stack " + s.name
	if samFile != "" {
		stackFrom += " (name and Region from " + samFile + " where the flags give none)"
	}
	s.accountFrom = stackFrom + ": --stack-account"
	if s.account == "" {
		s.account = opts.Account()
		s.accountFrom = stackFrom + ": --default-account"
	}
	if s.region == "" {
		s.region = opts.Region()
	}
	for i, k := range root.keys {
		switch k {
		case "AWSTemplateFormatVersion", "Description", "Metadata", "Parameters", "Mappings",
			"Conditions", "Transform", "Resources", "Outputs", "Rules", "Hooks":
		case "Globals":
			if !hasSAMTransform(root.get("Transform")) {
				diags.Errorf(root.vals[i].pos, "Template format error: Invalid template property or properties [Globals] (Globals is a SAM section: add Transform: AWS::Serverless-2016-10-31)")
				continue
			}
			s.simpleTableGlobals = checkGlobals(root.vals[i], &diags)
		default:
			diags.Errorf(root.vals[i].pos, "Template format error: Invalid template property or properties [%s]", k)
		}
	}
	if v := root.get("AWSTemplateFormatVersion"); v != nil && (v.k != kScalar || (v.s != "2010-09-09")) {
		diags.Errorf(v.pos, "Template format error: Unsupported template version %s", v.s)
	}
	s.mappings = root.get("Mappings")
	s.condDefs = root.get("Conditions")
	if s.mappings != nil && s.mappings.k != kMap {
		diags.Errorf(s.mappings.pos, "Template format error: Mappings must be a mapping")
	}
	if s.condDefs != nil && s.condDefs.k != kMap {
		diags.Errorf(s.condDefs.pos, "Template format error: Conditions must be a mapping")
	}
	if t := root.get("Transform"); t != nil {
		checkTransform(t, &diags)
	}
	s.loadParams(root.get("Parameters"), opts, &diags)

	res := root.get("Resources")
	if res == nil || res.k != kMap || len(res.keys) == 0 {
		p := root.pos
		if res != nil {
			p = res.pos
		}
		diags.Errorf(p, "Template format error: At least one Resources member must be defined.")
		return nil, diags
	}
	for i, id := range res.keys {
		def := res.vals[i]
		if def.k != kMap {
			diags.Errorf(def.pos, "Template format error: [/Resources/%s] resource definition is malformed", id)
			continue
		}
		typ := def.get("Type")
		if typ == nil || typ.k != kScalar {
			diags.Errorf(def.pos, "Template format error: [/Resources/%s] Every Resources object must contain a Type member.", id)
			continue
		}
		if strings.HasPrefix(id, "Fn::ForEach::") {
			diags.Errorf(def.pos, "Fn::ForEach (AWS::LanguageExtensions) is not supported")
			continue
		}
		s.resources[id] = &resource{id: id, typ: typ.s, def: def}
		s.order = append(s.order, id)
	}
	// Conditions are checked even when unused, as CloudFormation does.
	if s.condDefs != nil && s.condDefs.k == kMap {
		for i, name := range s.condDefs.keys {
			if _, err := s.condition(s.condDefs.vals[i], name); err != nil {
				addErr(&diags, err)
			}
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}

	s.checkOutputs(root.get("Outputs"), &diags)
	var specs []spec.TableSpec
	for _, id := range s.order {
		r := s.resources[id]
		got, ok := s.resource(r, &diags)
		if ok {
			specs = append(specs, got...)
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return specs, diags
}

func addErr(diags *spec.Diagnostics, err error) {
	if e, ok := err.(*evalError); ok {
		diags.Errorf(e.pos, "%s", e.msg)
		return
	}
	diags.Errorf(spec.Pos{}, "%v", err)
}

// hasSAMTransform reports whether Transform names SAM's.
func hasSAMTransform(t *node) bool {
	if t == nil {
		return false
	}
	names := t.items
	if t.k == kScalar {
		names = []*node{t}
	}
	for _, n := range names {
		if n.k == kScalar && n.s == "AWS::Serverless-2016-10-31" {
			return true
		}
	}
	return false
}

// samGlobalSections are the resource sections SAM's Globals accepts; only
// SimpleTable touches a table, the others are accepted and ignored.
func samGlobalSections() []string {
	return []string{"Api", "CapacityProvider", "Function", "HttpApi", "LayerVersion", "SimpleTable", "StateMachine"}
}

// checkGlobals validates SAM's Globals section and returns its SimpleTable
// properties (nil when none). SAM allows only SSESpecification there.
func checkGlobals(g *node, diags *spec.Diagnostics) *node {
	const invalid = "'Globals' section is invalid. "
	if g.k != kMap {
		diags.Errorf(g.pos, invalid+"It must be a mapping of resource types to properties")
		return nil
	}
	var st *node
	for i, k := range g.keys {
		if !slices.Contains(samGlobalSections(), k) {
			diags.Errorf(g.vals[i].pos, invalid+"'%s' is not supported. Must be one of the following values - [%s]", k, strings.Join(samGlobalSections(), ", "))
			continue
		}
		if k != "SimpleTable" {
			continue
		}
		st = g.vals[i]
		if st.k != kMap {
			diags.Errorf(st.pos, invalid+"'SimpleTable' must be a mapping of properties")
			return nil
		}
		for j, p := range st.keys {
			if p != "SSESpecification" {
				diags.Errorf(st.vals[j].pos, invalid+"'%s' is not a supported property of 'SimpleTable'. Must be one of the following values - [SSESpecification]", p)
			}
		}
	}
	return st
}

// mergeGlobals returns props with every property of globals it lacks;
// mappings present in both are merged the same way, the resource's own
// values winning, as SAM does.
func mergeGlobals(globals, props *node) *node {
	if globals == nil || globals.k != kMap || props.k != kMap {
		return props
	}
	out := &node{k: kMap, pos: props.pos, keys: append([]string(nil), props.keys...), vals: append([]*node(nil), props.vals...)}
	for i := range props.keys {
		out.keyPos = append(out.keyPos, props.keyAt(i))
	}
	for i, k := range globals.keys {
		own := props.get(k)
		switch {
		case own == nil:
			out.keys = append(out.keys, k)
			out.keyPos = append(out.keyPos, globals.keyAt(i))
			out.vals = append(out.vals, globals.vals[i])
		case own.k == kMap && globals.vals[i].k == kMap:
			for j := range out.keys {
				if out.keys[j] == k {
					out.vals[j] = mergeGlobals(globals.vals[i], own)
				}
			}
		}
	}
	return out
}

func checkTransform(t *node, diags *spec.Diagnostics) {
	var names []*node
	switch t.k {
	case kScalar:
		names = []*node{t}
	case kSeq:
		names = t.items
	}
	for _, n := range names {
		if n.k != kScalar {
			diags.Errorf(n.pos, "Template format error: unsupported Transform")
			continue
		}
		switch n.s {
		case "AWS::Serverless-2016-10-31", "AWS::LanguageExtensions":
		default:
			diags.Warnf(n.pos, "transform %s is not applied", n.s)
		}
	}
}

// loadParams resolves Parameters from overrides and defaults and checks
// their constraints.
func (s *stack) loadParams(params *node, opts spec.Options, diags *spec.Diagnostics) {
	overrides := map[string]string{}
	for _, f := range opts.ParamFiles {
		m, err := readParamFile(f)
		if err != nil {
			diags.Errorf(spec.Pos{File: f}, "%v", err)
			continue
		}
		for k, v := range m {
			overrides[k] = v
		}
	}
	for _, p := range opts.Params {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			diags.Errorf(spec.Pos{}, "--param %q: expected KEY=VALUE", p)
			continue
		}
		overrides[k] = v
	}
	var unknown []string
	for k := range overrides {
		if params.get(k) == nil {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		// CloudFormation rejects the stack; one --param-file often serves
		// several templates loaded together, so this only warns.
		diags.Warnf(spec.Pos{File: s.file, Line: 1, Col: 1}, "Parameters: [%s] do not exist in the template; ignored", strings.Join(unknown, ", "))
	}
	if params == nil {
		return
	}
	if params.k != kMap {
		diags.Errorf(params.pos, "Template format error: Parameters must be a mapping")
		return
	}
	var missing []string
	for i, name := range params.keys {
		def := params.vals[i]
		if def.k != kMap {
			diags.Errorf(def.pos, "Template format error: Parameter %s must be a mapping", name)
			continue
		}
		typ := "String"
		if t := def.get("Type"); t != nil && t.k == kScalar {
			typ = t.s
		} else {
			diags.Errorf(def.pos, "Template format error: Every Parameters object must contain a Type member.")
			continue
		}
		val, ok := overrides[name]
		pos := def.pos
		if !ok {
			d := def.get("Default")
			if d == nil {
				missing = append(missing, name)
				continue
			}
			pos = d.pos
			switch d.k {
			case kScalar:
				val = d.s
			case kSeq:
				var parts []string
				for _, e := range d.items {
					parts = append(parts, e.s)
				}
				val = strings.Join(parts, ",")
			default:
				diags.Errorf(d.pos, "Template format error: Default of parameter %s must be a string", name)
				continue
			}
		}
		if err := checkParam(name, typ, val, def); err != "" {
			diags.Errorf(pos, "%s", err)
			continue
		}
		switch {
		case typ == "CommaDelimitedList" || strings.HasPrefix(typ, "List<"):
			list := &node{k: kSeq, pos: pos}
			if val != "" {
				for _, p := range strings.Split(val, ",") {
					list.items = append(list.items, scalar(pos, strings.TrimSpace(p)))
				}
			}
			s.params[name] = list
		case strings.HasPrefix(typ, "AWS::SSM::Parameter::"):
			// CDK adds BootstrapVersion to every stack, read only by its
			// Rules (which are not evaluated): nothing to warn about.
			if name != "BootstrapVersion" || !strings.HasPrefix(val, "/cdk-bootstrap/") {
				diags.Warnf(pos, "parameter %s: SSM parameter values are not looked up; the parameter name %q is used as its value", name, val)
			}
			s.params[name] = scalar(pos, val)
		default:
			s.params[name] = scalar(pos, val)
		}
	}
	if len(missing) > 0 {
		diags.Errorf(params.pos, "Parameters: [%s] must have values", strings.Join(missing, ", "))
	}
}

func checkParam(name, typ, val string, def *node) string {
	if av := def.get("AllowedValues"); av != nil && av.k == kSeq {
		vals := []string{val}
		if typ == "CommaDelimitedList" || strings.HasPrefix(typ, "List<") {
			vals = strings.Split(val, ",")
		}
		for _, v := range vals {
			found := false
			for _, a := range av.items {
				if a.s == strings.TrimSpace(v) {
					found = true
				}
			}
			if !found {
				return fmt.Sprintf("Parameter '%s' must be one of AllowedValues", name)
			}
		}
	}
	if p := def.get("AllowedPattern"); p != nil && p.k == kScalar {
		re, err := regexp.Compile("^(?:" + p.s + ")$")
		if err != nil {
			return fmt.Sprintf("Template format error: Parameter '%s' has an invalid AllowedPattern", name)
		}
		if !re.MatchString(val) {
			return fmt.Sprintf("Parameter '%s' must match pattern %s", name, p.s)
		}
	}
	if n := def.get("MinLength"); n != nil {
		if m, err := strconv.Atoi(n.s); err == nil && len(val) < m {
			return fmt.Sprintf("Parameter '%s' must contain at least %d characters", name, m)
		}
	}
	if n := def.get("MaxLength"); n != nil {
		if m, err := strconv.Atoi(n.s); err == nil && len(val) > m {
			return fmt.Sprintf("Parameter '%s' must contain at most %d characters", name, m)
		}
	}
	if typ == "Number" || typ == "List<Number>" {
		for _, v := range strings.Split(val, ",") {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return fmt.Sprintf("Parameter '%s' must be a number", name)
			}
			if n := def.get("MinValue"); n != nil {
				if m, err := strconv.ParseFloat(n.s, 64); err == nil && f < m {
					return fmt.Sprintf("Parameter '%s' must be a number not less than %s", name, n.s)
				}
			}
			if n := def.get("MaxValue"); n != nil {
				if m, err := strconv.ParseFloat(n.s, 64); err == nil && f > m {
					return fmt.Sprintf("Parameter '%s' must be a number not greater than %s", name, n.s)
				}
			}
		}
	}
	return ""
}

// readParamFile reads the aws cloudformation parameters format
// ([{"ParameterKey": …, "ParameterValue": …}]) and, leniently, a list of
// "Key=Value" strings or a plain object.
func readParamFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err == nil {
		for _, raw := range list {
			var kv struct {
				ParameterKey   *string
				ParameterValue *string
			}
			var s string
			if json.Unmarshal(raw, &s) == nil {
				k, v, ok := strings.Cut(s, "=")
				if !ok {
					return nil, fmt.Errorf("%s: %q is not Key=Value", path, s)
				}
				out[k] = v
				continue
			}
			if err := json.Unmarshal(raw, &kv); err != nil || kv.ParameterKey == nil {
				return nil, fmt.Errorf("%s: each entry needs ParameterKey and ParameterValue", path)
			}
			if kv.ParameterValue != nil {
				out[*kv.ParameterKey] = *kv.ParameterValue
			}
		}
		return out, nil
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not a parameters file: %v", path, err)
	}
	if p, ok := m["Parameters"].(map[string]any); ok {
		m = p
	}
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out, nil
}

// physicalName is a table's TableName, or the deterministic name
// CloudFormation's pattern gives an unnamed resource:
// <stack>-<logicalId>-<SUFFIX>, the suffix derived from account, Region,
// stack and logical id so re-loading finds the same table.
func (s *stack) physicalName(r *resource) (string, error) {
	switch r.state {
	case 2:
		return r.name, r.err
	case 1:
		return "", errAt(r.def, "Template format error: Circular dependency between resources: [%s]", r.id)
	}
	r.state = 1
	r.name = GeneratedName(s.account, s.region, s.name, r.id)
	if isTable(r.typ) {
		if tn := r.def.get("Properties").get("TableName"); tn != nil {
			v, err := s.eval(tn, 0)
			switch {
			case err != nil:
				r.err = err
			case v.k == kScalar:
				r.name = v.s
			case v.k == kNoValue:
			default:
				r.err = errAt(tn, "Value of property TableName must be of type String")
			}
		}
	}
	r.state = 2
	return r.name, r.err
}

// GeneratedName is the name of an unnamed table: stack name and logical
// id, truncated as CloudFormation does, and a 12-character suffix.
func GeneratedName(account, region, stack, logicalID string) string {
	sum := sha256.Sum256([]byte(account + "\x00" + region + "\x00" + stack + "\x00" + logicalID))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	suffix := make([]byte, 12)
	for i := range suffix {
		suffix[i] = alphabet[int(sum[i])%len(alphabet)]
	}
	if len(stack) > 128 {
		stack = stack[:128]
	}
	if len(logicalID) > 100 {
		logicalID = logicalID[:100]
	}
	return stack + "-" + logicalID + "-" + string(suffix)
}

func stackUUID(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}

// ReadExports reads the values Fn::ImportValue resolves: the output of
// `aws cloudformation list-exports` ({"Exports": [{"Name": …, "Value": …}]})
// or a plain JSON object of name to value.
func ReadExports(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var listed struct {
		Exports []struct{ Name, Value *string }
	}
	if err := json.Unmarshal(data, &listed); err == nil && listed.Exports != nil {
		out := map[string]string{}
		for _, e := range listed.Exports {
			if e.Name == nil || e.Value == nil {
				return nil, fmt.Errorf("%s: every export needs a Name and a Value", path)
			}
			out[*e.Name] = *e.Value
		}
		return out, nil
	}
	var plain map[string]string
	if err := json.Unmarshal(data, &plain); err != nil {
		return nil, fmt.Errorf("%s: not an exports file (list-exports output or a JSON object of strings): %v", path, err)
	}
	return plain, nil
}

// checkOutputs evaluates every output whose condition holds, so a broken
// reference there is reported as CloudFormation would.
func (s *stack) checkOutputs(outs *node, diags *spec.Diagnostics) {
	if outs == nil {
		return
	}
	if outs.k != kMap {
		diags.Errorf(outs.pos, "Template format error: Outputs must be a mapping")
		return
	}
	for i, name := range outs.keys {
		o := outs.vals[i]
		if o.k != kMap || o.get("Value") == nil {
			diags.Errorf(o.pos, "Template format error: Every Outputs member must contain a Value object, the Output %s does not", name)
			continue
		}
		if c := o.get("Condition"); c != nil && c.k == kScalar {
			ok, err := s.condition(c, c.s)
			if err != nil {
				addErr(diags, err)
				continue
			}
			if !ok {
				continue
			}
		}
		if _, err := s.eval(o.get("Value"), 0); err != nil {
			addErr(diags, err)
		}
		if e := o.get("Export"); e != nil {
			if _, err := s.eval(e, 0); err != nil {
				addErr(diags, err)
			}
		}
	}
}
