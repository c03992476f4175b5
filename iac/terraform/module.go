package terraform

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/extenddb/extenddb/iac/spec"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/zclconf/go-cty/cty"
)

// module is one parsed module directory.
type module struct {
	dir       string
	variables []*variable
	locals    []*hcl.Attribute
	providers []*hcl.Block
	resources []*block
	datas     []*block
	calls     []*block
	outputs   []*hcl.Block
}

type variable struct {
	name   string
	block  *hcl.Block
	attrs  hcl.Attributes
	blocks hcl.Blocks
}

// block is a resource, data source or module call.
type block struct {
	typ, name string
	b         *hcl.Block
	body      hcl.Body
}

func (b *block) defRange() hcl.Range { return b.b.DefRange }

var topSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "terraform"}, {Type: "provider", LabelNames: []string{"name"}},
	{Type: "variable", LabelNames: []string{"name"}}, {Type: "locals"},
	{Type: "output", LabelNames: []string{"name"}}, {Type: "module", LabelNames: []string{"name"}},
	{Type: "resource", LabelNames: []string{"type", "name"}}, {Type: "data", LabelNames: []string{"type", "name"}},
	{Type: "moved"}, {Type: "import"}, {Type: "removed"}, {Type: "check", LabelNames: []string{"name"}},
	{Type: "ephemeral", LabelNames: []string{"type", "name"}},
}}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type"}, {Name: "default"}, {Name: "description"},
		{Name: "sensitive"}, {Name: "nullable"}, {Name: "ephemeral"}},
	Blocks: []hcl.BlockHeaderSchema{{Type: "validation"}},
}

// isOverride tells override files (override.tf, *_override.tf and their
// .tf.json forms), whose blocks merge into the primary ones.
func isOverride(name string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".json"), ".tf")
	return base == "override" || strings.HasSuffix(base, "_override")
}

// parseModule reads the .tf and .tf.json files of dir.
func parseModule(parser *hclparse.Parser, dir string) (*module, spec.Diagnostics) {
	var diags spec.Diagnostics
	entries, err := os.ReadDir(dir)
	if err != nil {
		diags.Errorf(spec.Pos{File: dir}, "cannot read module directory: %v", err)
		return nil, diags
	}
	primary, overrides, ok := moduleFiles(dir, entries, &diags)
	if !ok {
		return nil, diags
	}
	m := &module{dir: dir}
	all := readModuleBlocks(parser, dir, primary, overrides, &diags)
	m.collect(all, &diags)
	return m, diags
}

// moduleFiles sorts the configuration files of dir into primary and
// override files, each in name order; ok is false when there are none.
func moduleFiles(dir string, entries []os.DirEntry, diags *spec.Diagnostics) (primary, overrides []string, ok bool) {
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || strings.HasSuffix(n, "~") || strings.HasPrefix(n, "#") {
			continue
		}
		if !strings.HasSuffix(n, ".tf") && !strings.HasSuffix(n, ".tf.json") {
			continue
		}
		if isOverride(n) {
			overrides = append(overrides, n)
		} else {
			primary = append(primary, n)
		}
	}
	sort.Strings(primary)
	sort.Strings(overrides)
	if len(primary) == 0 && len(overrides) == 0 {
		diags.Errorf(spec.Pos{File: dir}, "no Terraform configuration files (.tf, .tf.json) in %s", dir)
		return nil, nil, false
	}
	return primary, overrides, true
}

// readModuleBlocks parses the primary files' top-level blocks, then merges
// each override file's blocks into the blocks they override.
func readModuleBlocks(parser *hclparse.Parser, dir string, primary, overrides []string, diags *spec.Diagnostics) []*hcl.Block {
	var all []*hcl.Block
	read := func(name string) (*hcl.BodyContent, bool) {
		path := filepath.Join(dir, name)
		var f *hcl.File
		var hd hcl.Diagnostics
		if strings.HasSuffix(name, ".json") {
			f, hd = parser.ParseJSONFile(path)
		} else {
			f, hd = parser.ParseHCLFile(path)
		}
		*diags = append(*diags, spec.FromHCL(hd)...)
		if f == nil || hd.HasErrors() {
			return nil, false
		}
		c, hd := f.Body.Content(topSchema)
		*diags = append(*diags, spec.FromHCL(hd)...)
		return c, c != nil
	}
	for _, name := range primary {
		c, ok := read(name)
		if !ok {
			continue
		}
		all = append(all, c.Blocks...)
	}
	for _, name := range overrides {
		c, ok := read(name)
		if !ok {
			continue
		}
		for _, ob := range c.Blocks {
			if ob.Type == "locals" {
				// Each override local replaces the primary one of that name.
				all = append(all, ob)
				continue
			}
			if ob.Type == "terraform" {
				continue
			}
			found := false
			for i, b := range all {
				if b.Type == ob.Type && sameLabels(b, ob) && (b.Type != "provider" || providerAlias(b) == providerAlias(ob)) {
					merged := *b
					merged.Body = mergeBody{base: b.Body, over: ob.Body}
					all[i] = &merged
					found = true
				}
			}
			if !found {
				diags.Errorf(spec.PosFromHCL(&ob.DefRange), "Missing base %s block to override: there is no %s block %q to override", ob.Type, ob.Type, strings.Join(ob.Labels, "."))
			}
		}
	}
	return all
}

// collect sorts a module's blocks into its variables, locals, providers,
// resources, data sources, module calls and outputs.
func (m *module) collect(all []*hcl.Block, diags *spec.Diagnostics) {
	var localAttrs []*hcl.Attribute
	localIdx := map[string]int{}
	for _, b := range all {
		switch b.Type {
		case "variable":
			c, hd := b.Body.Content(variableSchema)
			*diags = append(*diags, spec.FromHCL(hd)...)
			if c == nil {
				continue
			}
			dup := false
			for _, v := range m.variables {
				if v.name == b.Labels[0] {
					diags.Errorf(spec.PosFromHCL(&b.DefRange), "Duplicate variable declaration: a variable named %q was already declared", b.Labels[0])
					dup = true
				}
			}
			if !dup {
				m.variables = append(m.variables, &variable{name: b.Labels[0], block: b, attrs: c.Attributes, blocks: c.Blocks})
			}
		case "locals":
			attrs, hd := b.Body.JustAttributes()
			*diags = append(*diags, spec.FromHCL(hd)...)
			names := make([]string, 0, len(attrs))
			for n := range attrs {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				if i, ok := localIdx[n]; ok {
					localAttrs[i] = attrs[n]
					continue
				}
				localIdx[n] = len(localAttrs)
				localAttrs = append(localAttrs, attrs[n])
			}
		case "provider":
			m.providers = append(m.providers, b)
		case "resource":
			m.resources = append(m.resources, &block{typ: b.Labels[0], name: b.Labels[1], b: b, body: b.Body})
		case "data":
			m.datas = append(m.datas, &block{typ: b.Labels[0], name: b.Labels[1], b: b, body: b.Body})
		case "module":
			m.calls = append(m.calls, &block{name: b.Labels[0], b: b, body: b.Body})
		case "output":
			m.outputs = append(m.outputs, b)
		}
	}
	m.locals = localAttrs
}

// providerAlias is the alias of a provider block, "" when it has none:
// Terraform merges an override provider block into the block of the same
// name and alias.
func providerAlias(b *hcl.Block) string {
	c, _, _ := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "alias"}}})
	if c == nil || c.Attributes["alias"] == nil {
		return ""
	}
	v, d := c.Attributes["alias"].Expr.Value(nil)
	if d.HasErrors() || v.IsNull() || !v.IsKnown() || !v.Type().Equals(cty.String) {
		return ""
	}
	return v.AsString()
}

func sameLabels(a, b *hcl.Block) bool {
	if len(a.Labels) != len(b.Labels) {
		return false
	}
	for i := range a.Labels {
		if a.Labels[i] != b.Labels[i] {
			return false
		}
	}
	return true
}

// mergeBody applies an override file's block to a primary one: the
// override's arguments replace the primary's, and nested blocks of a type
// the override has replace all the primary's blocks of that type.
type mergeBody struct {
	base, over hcl.Body
}

func (m mergeBody) Content(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Diagnostics) {
	bc, diags := m.base.Content(s)
	oc, _, d2 := m.over.PartialContent(s)
	diags = append(diags, d2...)
	return mergeContent(bc, oc), diags
}

func (m mergeBody) PartialContent(s *hcl.BodySchema) (*hcl.BodyContent, hcl.Body, hcl.Diagnostics) {
	bc, br, diags := m.base.PartialContent(s)
	oc, or, d2 := m.over.PartialContent(s)
	diags = append(diags, d2...)
	return mergeContent(bc, oc), mergeBody{base: br, over: or}, diags
}

func (m mergeBody) JustAttributes() (hcl.Attributes, hcl.Diagnostics) {
	ba, diags := m.base.JustAttributes()
	oa, d2 := m.over.JustAttributes()
	diags = append(diags, d2...)
	out := hcl.Attributes{}
	for k, v := range ba {
		out[k] = v
	}
	for k, v := range oa {
		out[k] = v
	}
	return out, diags
}

func (m mergeBody) MissingItemRange() hcl.Range { return m.base.MissingItemRange() }

func mergeContent(base, over *hcl.BodyContent) *hcl.BodyContent {
	if base == nil {
		base = &hcl.BodyContent{}
	}
	if over == nil {
		return base
	}
	out := &hcl.BodyContent{Attributes: hcl.Attributes{}, MissingItemRange: base.MissingItemRange}
	for k, v := range base.Attributes {
		out.Attributes[k] = v
	}
	for k, v := range over.Attributes {
		out.Attributes[k] = v
	}
	overTypes := map[string]bool{}
	for _, b := range over.Blocks {
		overTypes[b.Type] = true
	}
	for _, b := range base.Blocks {
		if !overTypes[b.Type] {
			out.Blocks = append(out.Blocks, b)
		}
	}
	out.Blocks = append(out.Blocks, over.Blocks...)
	return out
}
