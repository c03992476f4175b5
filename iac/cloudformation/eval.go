package cloudformation

import (
	"encoding/base64"
	"fmt"
	"math/big"
	"net"
	"strconv"
	"strings"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
)

// evalError is a failure at a position; the resource being evaluated is
// skipped and the error reported.
type evalError struct {
	pos spec.Pos
	msg string
}

func (e *evalError) Error() string { return e.msg }

func errAt(n *node, format string, args ...any) error {
	var p spec.Pos
	if n != nil {
		p = n.pos
	}
	return &evalError{pos: p, msg: fmt.Sprintf(format, args...)}
}

type resource struct {
	id    string
	typ   string
	def   *node
	name  string // physical name, once resolved
	state uint8  // 0 unresolved, 1 resolving, 2 resolved
	err   error
}

// stack is one template deployed into one account and Region.
type stack struct {
	file    string
	name    string
	account string
	// accountFrom says how account was chosen (spec.TableSpec.AccountFrom).
	accountFrom string
	region      string
	params      map[string]*node
	mappings    *node
	condDefs    *node
	condVals    map[string]bool
	condState   map[string]uint8
	resources   map[string]*resource
	order       []string
	exports     map[string]string
	// simpleTableGlobals is SAM's Globals.SimpleTable, merged under every
	// AWS::Serverless::SimpleTable's Properties.
	simpleTableGlobals *node
}

func (s *stack) ns() api.Namespace {
	return api.Namespace{Account: s.account, Region: s.region}
}

func (s *stack) partition() string { return s.ns().Partition() }

func (s *stack) urlSuffix() string {
	if strings.HasPrefix(s.region, "cn-") {
		return "amazonaws.com.cn"
	}
	return "amazonaws.com"
}

func (s *stack) pseudo(name string, at *node) (*node, bool) {
	var v string
	switch name {
	case "AWS::Region":
		v = s.region
	case "AWS::AccountId":
		v = s.account
	case "AWS::StackName":
		v = s.name
	case "AWS::StackId":
		v = fmt.Sprintf("arn:%s:cloudformation:%s:%s:stack/%s/%s", s.partition(), s.region, s.account, s.name, stackUUID(s.account, s.region, s.name))
	case "AWS::Partition":
		v = s.partition()
	case "AWS::URLSuffix":
		v = s.urlSuffix()
	case "AWS::NotificationARNs":
		return &node{k: kSeq, pos: at.pos}, true
	case "AWS::NoValue":
		return &node{k: kNoValue, pos: at.pos}, true
	default:
		return nil, false
	}
	return scalar(at.pos, v), true
}

// intrinsic returns the function name of a one-key mapping that is a call.
func intrinsic(n *node, conditions bool) (string, *node, bool) {
	if n == nil || n.k != kMap || len(n.keys) != 1 {
		return "", nil, false
	}
	k := n.keys[0]
	if k == "Ref" || strings.HasPrefix(k, "Fn::") || (conditions && k == "Condition") {
		return k, n.vals[0], true
	}
	return "", nil, false
}

const maxEvalDepth = 100

// eval resolves every intrinsic function under n. Map entries and list
// items that evaluate to AWS::NoValue disappear.
func (s *stack) eval(n *node, depth int) (*node, error) {
	if n == nil {
		return nil, nil
	}
	if depth > maxEvalDepth {
		return nil, errAt(n, "Template error: expressions are nested too deeply")
	}
	if fn, arg, ok := intrinsic(n, false); ok {
		return s.call(n, fn, arg, depth+1)
	}
	switch n.k {
	case kMap:
		out := &node{k: kMap, pos: n.pos}
		for i, k := range n.keys {
			v, err := s.eval(n.vals[i], depth+1)
			if err != nil {
				return nil, err
			}
			if v.k == kNoValue {
				continue
			}
			out.keys = append(out.keys, k)
			out.keyPos = append(out.keyPos, n.keyAt(i))
			out.vals = append(out.vals, v)
		}
		return out, nil
	case kSeq:
		out := &node{k: kSeq, pos: n.pos}
		for _, e := range n.items {
			v, err := s.eval(e, depth+1)
			if err != nil {
				return nil, err
			}
			if v.k == kNoValue {
				continue
			}
			out.items = append(out.items, v)
		}
		return out, nil
	}
	return n, nil
}

// evalString evaluates n and requires a scalar.
func (s *stack) evalString(n *node, fn string, depth int) (string, error) {
	v, err := s.eval(n, depth)
	if err != nil {
		return "", err
	}
	if v == nil || v.k != kScalar {
		return "", errAt(n, "Template error: %s expects a string, got %s", fn, v.describe())
	}
	return v.s, nil
}

func (s *stack) evalList(n *node, fn string, depth int) (*node, error) {
	v, err := s.eval(n, depth)
	if err != nil {
		return nil, err
	}
	if v == nil || v.k != kSeq {
		return nil, errAt(n, "Template error: %s expects a list, got %s", fn, v.describe())
	}
	return v, nil
}

func argList(fn string, arg *node, min, max int) ([]*node, error) {
	if arg == nil || arg.k != kSeq || len(arg.items) < min || len(arg.items) > max {
		if min == max {
			return nil, errAt(arg, "Template error: %s takes a list of %d elements", fn, min)
		}
		return nil, errAt(arg, "Template error: %s takes a list of %d to %d elements", fn, min, max)
	}
	return arg.items, nil
}

func (s *stack) call(at *node, fn string, arg *node, depth int) (*node, error) {
	switch fn {
	case "Ref":
		name, err := s.evalString(arg, "Ref", depth)
		if err != nil {
			return nil, err
		}
		return s.ref(at, name)
	case "Fn::GetAtt":
		return s.fnGetAtt(at, fn, arg, depth)
	case "Fn::Sub":
		return s.sub(at, arg, depth)
	case "Fn::Join":
		return s.fnJoin(at, fn, arg, depth)
	case "Fn::Select":
		return s.fnSelect(at, fn, arg, depth)
	case "Fn::Split":
		return s.fnSplit(at, fn, arg, depth)
	case "Fn::FindInMap":
		return s.findInMap(at, arg, depth)
	case "Fn::If":
		return s.fnIf(at, fn, arg, depth)
	case "Fn::Equals", "Fn::And", "Fn::Or", "Fn::Not", "Condition":
		b, err := s.evalCond(at, depth)
		if err != nil {
			return nil, err
		}
		return &node{k: kScalar, pos: at.pos, s: strconv.FormatBool(b), tag: "bool"}, nil
	case "Fn::Base64":
		str, err := s.evalString(arg, fn, depth)
		if err != nil {
			return nil, err
		}
		return scalar(at.pos, base64.StdEncoding.EncodeToString([]byte(str))), nil
	case "Fn::Cidr":
		return s.cidr(at, arg, depth)
	case "Fn::GetAZs":
		return s.fnGetAZs(at, fn, arg, depth)
	case "Fn::ImportValue":
		return s.fnImportValue(at, fn, arg, depth)
	case "Fn::Length":
		list, err := s.evalList(arg, fn, depth)
		if err != nil {
			return nil, err
		}
		return &node{k: kScalar, pos: at.pos, s: strconv.Itoa(len(list.items)), tag: "int"}, nil
	case "Fn::ToJsonString":
		v, err := s.eval(arg, depth)
		if err != nil {
			return nil, err
		}
		return scalar(at.pos, toJSON(v)), nil
	}
	return nil, errAt(at, "Template format error: Unsupported intrinsic function %s", fn)
}

// fnGetAtt evaluates Fn::GetAtt, in its string (LogicalId.Attribute) or list form.
func (s *stack) fnGetAtt(at *node, fn string, arg *node, depth int) (*node, error) {
	var res, attr string
	if arg != nil && arg.k == kScalar {
		i := strings.Index(arg.s, ".")
		if i <= 0 {
			return nil, errAt(arg, "Template error: Fn::GetAtt expects LogicalId.Attribute")
		}
		res, attr = arg.s[:i], arg.s[i+1:]
	} else {
		items, err := argList(fn, arg, 2, 2)
		if err != nil {
			return nil, err
		}
		if res, err = s.evalString(items[0], fn, depth); err != nil {
			return nil, err
		}
		if attr, err = s.evalString(items[1], fn, depth); err != nil {
			return nil, err
		}
	}
	return s.getAtt(at, res, attr)
}

// fnJoin evaluates Fn::Join: a list of strings joined by a delimiter.
func (s *stack) fnJoin(at *node, fn string, arg *node, depth int) (*node, error) {
	items, err := argList(fn, arg, 2, 2)
	if err != nil {
		return nil, err
	}
	delim, err := s.evalString(items[0], fn, depth)
	if err != nil {
		return nil, err
	}
	list, err := s.evalList(items[1], fn, depth)
	if err != nil {
		return nil, err
	}
	parts := make([]string, 0, len(list.items))
	for _, e := range list.items {
		if e.k != kScalar {
			return nil, errAt(e, "Template error: every Fn::Join object must be a string, got %s", e.describe())
		}
		parts = append(parts, e.s)
	}
	return scalar(at.pos, strings.Join(parts, delim)), nil
}

// fnSelect evaluates Fn::Select: one element of a list by index.
func (s *stack) fnSelect(at *node, fn string, arg *node, depth int) (*node, error) {
	items, err := argList(fn, arg, 2, 2)
	if err != nil {
		return nil, err
	}
	idxText, err := s.evalString(items[0], fn, depth)
	if err != nil {
		return nil, err
	}
	list, err := s.evalList(items[1], fn, depth)
	if err != nil {
		return nil, err
	}
	idx, err := strconv.Atoi(idxText)
	if err != nil || idx < 0 || idx >= len(list.items) {
		return nil, errAt(items[0], "Template error: Fn::Select cannot select nonexistent value at index %s", idxText)
	}
	return list.items[idx], nil
}

// fnSplit evaluates Fn::Split: a string cut at a delimiter.
func (s *stack) fnSplit(at *node, fn string, arg *node, depth int) (*node, error) {
	items, err := argList(fn, arg, 2, 2)
	if err != nil {
		return nil, err
	}
	delim, err := s.evalString(items[0], fn, depth)
	if err != nil {
		return nil, err
	}
	str, err := s.evalString(items[1], fn, depth)
	if err != nil {
		return nil, err
	}
	if delim == "" {
		return nil, errAt(items[0], "Template error: Fn::Split delimiter must not be empty")
	}
	out := &node{k: kSeq, pos: at.pos}
	for _, p := range strings.Split(str, delim) {
		out.items = append(out.items, scalar(at.pos, p))
	}
	return out, nil
}

// fnIf evaluates Fn::If: one of two values by a named condition.
func (s *stack) fnIf(at *node, fn string, arg *node, depth int) (*node, error) {
	items, err := argList(fn, arg, 3, 3)
	if err != nil {
		return nil, err
	}
	if items[0].k != kScalar {
		return nil, errAt(items[0], "Template error: Fn::If requires a condition name as its first element")
	}
	ok, err := s.condition(items[0], items[0].s)
	if err != nil {
		return nil, err
	}
	if ok {
		return s.eval(items[1], depth)
	}
	return s.eval(items[2], depth)
}

// fnGetAZs evaluates Fn::GetAZs: three zones of the Region, the stack's if empty.
func (s *stack) fnGetAZs(at *node, fn string, arg *node, depth int) (*node, error) {
	region, err := s.evalString(arg, fn, depth)
	if err != nil {
		return nil, err
	}
	if region == "" {
		region = s.region
	}
	out := &node{k: kSeq, pos: at.pos}
	for _, z := range []string{"a", "b", "c"} {
		out.items = append(out.items, scalar(at.pos, region+z))
	}
	return out, nil
}

// fnImportValue evaluates Fn::ImportValue from the exports file.
func (s *stack) fnImportValue(at *node, fn string, arg *node, depth int) (*node, error) {
	name, err := s.evalString(arg, fn, depth)
	if err != nil {
		return nil, err
	}
	v, ok := s.exports[name]
	if !ok {
		return nil, errAt(at, "No export named %s found. Give exported values with an exports file", name)
	}
	return scalar(at.pos, v), nil
}

func (s *stack) ref(at *node, name string) (*node, error) {
	if v, ok := s.pseudo(name, at); ok {
		return v, nil
	}
	if v, ok := s.params[name]; ok {
		return v, nil
	}
	if r, ok := s.resources[name]; ok {
		phys, err := s.physicalName(r)
		if err != nil {
			return nil, err
		}
		return scalar(at.pos, phys), nil
	}
	return nil, errAt(at, "Template format error: Unresolved resource dependencies [%s] in the Resources block of the template", name)
}

func isTable(typ string) bool {
	switch typ {
	case typeTable, typeGlobalTable, typeSimpleTable:
		return true
	}
	return false
}

func (s *stack) getAtt(at *node, res, attr string) (*node, error) {
	r, ok := s.resources[res]
	if !ok {
		return nil, errAt(at, "Template format error: Unresolved resource dependencies [%s] in the Resources block of the template", res)
	}
	name, err := s.physicalName(r)
	if err != nil {
		return nil, err
	}
	if !isTable(r.typ) {
		// Attributes of resources ExtendDB does not model are opaque but
		// stable, so tables that merely mention them still load.
		return scalar(at.pos, fmt.Sprintf("%s.%s", name, attr)), nil
	}
	arn := s.ns().TableARN(name)
	switch attr {
	case "Arn":
		return scalar(at.pos, arn), nil
	case "StreamArn":
		if r.typ == typeSimpleTable || r.def.get("Properties").get("StreamSpecification") == nil {
			return nil, errAt(at, "Template error: resource %s has no stream, so it has no attribute StreamArn", res)
		}
		return scalar(at.pos, arn+"/stream/"+StreamLabelPlaceholder), nil
	case "TableId":
		if r.typ == typeGlobalTable {
			return scalar(at.pos, stackUUID(s.account, s.region, name)), nil
		}
	}
	return nil, errAt(at, "Template error: resource %s does not support attribute type %s in Fn::GetAtt", res, attr)
}

// StreamLabelPlaceholder stands for the stream label in a StreamArn the
// template computes: the real label is the table's creation time, known
// only once it is provisioned.
const StreamLabelPlaceholder = "*"

func (s *stack) sub(at *node, arg *node, depth int) (*node, error) {
	var tmpl string
	vars := map[string]*node{}
	switch {
	case arg != nil && arg.k == kScalar:
		tmpl = arg.s
	case arg != nil && arg.k == kSeq && len(arg.items) == 2:
		var err error
		if tmpl, err = s.evalString(arg.items[0], "Fn::Sub", depth); err != nil {
			return nil, err
		}
		m := arg.items[1]
		if m.k != kMap {
			return nil, errAt(m, "Template error: the second element of Fn::Sub must be a mapping of variables")
		}
		for i, k := range m.keys {
			v, err := s.eval(m.vals[i], depth)
			if err != nil {
				return nil, err
			}
			vars[k] = v
		}
	default:
		return nil, errAt(arg, "Template error: Fn::Sub takes a string or a list of a string and a mapping")
	}
	var b strings.Builder
	for {
		i := strings.Index(tmpl, "${")
		if i < 0 {
			b.WriteString(tmpl)
			break
		}
		b.WriteString(tmpl[:i])
		rest := tmpl[i+2:]
		j := strings.Index(rest, "}")
		if j < 0 {
			return nil, errAt(at, "Template error: Fn::Sub has an unterminated ${ in %q", tmpl)
		}
		expr := rest[:j]
		tmpl = rest[j+1:]
		if strings.HasPrefix(expr, "!") {
			b.WriteString("${" + expr[1:] + "}")
			continue
		}
		expr = strings.TrimSpace(expr)
		var v *node
		var err error
		if vv, ok := vars[expr]; ok {
			v = vv
		} else if k := strings.Index(expr, "."); k > 0 && !strings.HasPrefix(expr, "AWS::") {
			v, err = s.getAtt(at, expr[:k], expr[k+1:])
		} else {
			v, err = s.ref(at, expr)
		}
		if err != nil {
			return nil, err
		}
		if v.k != kScalar {
			return nil, errAt(at, "Template error: variable %s in Fn::Sub must be a string, got %s", expr, v.describe())
		}
		b.WriteString(v.s)
	}
	return scalar(at.pos, b.String()), nil
}

func (s *stack) findInMap(at *node, arg *node, depth int) (*node, error) {
	items, err := argList("Fn::FindInMap", arg, 3, 4)
	if err != nil {
		return nil, err
	}
	var keys [3]string
	for i := range 3 {
		if keys[i], err = s.evalString(items[i], "Fn::FindInMap", depth); err != nil {
			return nil, err
		}
	}
	var def *node
	if len(items) == 4 {
		d := items[3]
		if d.k != kMap || d.get("DefaultValue") == nil || len(d.keys) != 1 {
			return nil, errAt(d, "Template error: the fourth element of Fn::FindInMap must be {DefaultValue: …}")
		}
		def = d.get("DefaultValue")
	}
	m := s.mappings.get(keys[0])
	if m == nil {
		if def != nil {
			return s.eval(def, depth)
		}
		return nil, errAt(at, "Template error: Unable to get mapping for %s::%s::%s", keys[0], keys[1], keys[2])
	}
	v := m.get(keys[1]).get(keys[2])
	if v == nil {
		if def != nil {
			return s.eval(def, depth)
		}
		return nil, errAt(at, "Template error: Unable to get mapping for %s::%s::%s", keys[0], keys[1], keys[2])
	}
	return v, nil
}

func (s *stack) cidr(at *node, arg *node, depth int) (*node, error) {
	items, err := argList("Fn::Cidr", arg, 3, 3)
	if err != nil {
		return nil, err
	}
	var a [3]string
	for i := range 3 {
		if a[i], err = s.evalString(items[i], "Fn::Cidr", depth); err != nil {
			return nil, err
		}
	}
	_, block, err := net.ParseCIDR(a[0])
	if err != nil {
		return nil, errAt(items[0], "Template error: Fn::Cidr: %s is not a CIDR block", a[0])
	}
	count, err1 := strconv.Atoi(a[1])
	bits, err2 := strconv.Atoi(a[2])
	ones, total := block.Mask.Size()
	if err1 != nil || err2 != nil || count < 1 || count > 256 || bits < 1 || ones+(total-ones-bits) > total || total-bits < ones {
		return nil, errAt(at, "Template error: Fn::Cidr: invalid count %s or cidrBits %s for %s", a[1], a[2], a[0])
	}
	prefix := total - bits
	if count > 1<<min(prefix-ones, 30) {
		return nil, errAt(at, "Template error: Fn::Cidr: %s cannot hold %d subnets of /%d", a[0], count, prefix)
	}
	out := &node{k: kSeq, pos: at.pos}
	base := new(big.Int).SetBytes(block.IP)
	step := new(big.Int).Lsh(big.NewInt(1), uint(bits))
	for i := range count {
		ipInt := new(big.Int).Add(base, new(big.Int).Mul(step, big.NewInt(int64(i))))
		raw := ipInt.FillBytes(make([]byte, len(block.IP)))
		out.items = append(out.items, scalar(at.pos, fmt.Sprintf("%s/%d", net.IP(raw).String(), prefix)))
	}
	return out, nil
}

// condition evaluates a named condition once and caches it.
func (s *stack) condition(at *node, name string) (bool, error) {
	if v, ok := s.condVals[name]; ok {
		return v, nil
	}
	def := s.condDefs.get(name)
	if def == nil {
		return false, errAt(at, "Template format error: Unresolved dependencies [%s]. Cannot reference resources in the Conditions block of the template", name)
	}
	if s.condState[name] == 1 {
		return false, errAt(at, "Template error: condition %s refers to itself", name)
	}
	s.condState[name] = 1
	v, err := s.evalCond(def, 0)
	s.condState[name] = 2
	if err != nil {
		return false, err
	}
	s.condVals[name] = v
	return v, nil
}

func (s *stack) evalCond(n *node, depth int) (bool, error) {
	if depth > maxEvalDepth {
		return false, errAt(n, "Template error: conditions are nested too deeply")
	}
	fn, arg, ok := intrinsic(n, true)
	if !ok {
		if n != nil && n.k == kScalar && n.tag == "bool" {
			return strings.EqualFold(n.s, "true"), nil
		}
		return false, errAt(n, "Template error: a condition must be Fn::Equals, Fn::And, Fn::Or, Fn::Not or Condition")
	}
	switch fn {
	case "Condition":
		if arg == nil || arg.k != kScalar {
			return false, errAt(n, "Template error: Condition takes a condition name")
		}
		return s.condition(arg, arg.s)
	case "Fn::Equals":
		items, err := argList(fn, arg, 2, 2)
		if err != nil {
			return false, err
		}
		a, err := s.eval(items[0], depth+1)
		if err != nil {
			return false, err
		}
		b, err := s.eval(items[1], depth+1)
		if err != nil {
			return false, err
		}
		return toJSON(asText(a)) == toJSON(asText(b)), nil
	case "Fn::And", "Fn::Or":
		items, err := argList(fn, arg, 2, 10)
		if err != nil {
			return false, err
		}
		for _, it := range items {
			v, err := s.evalCond(it, depth+1)
			if err != nil {
				return false, err
			}
			if fn == "Fn::And" && !v {
				return false, nil
			}
			if fn == "Fn::Or" && v {
				return true, nil
			}
		}
		return fn == "Fn::And", nil
	case "Fn::Not":
		items, err := argList(fn, arg, 1, 1)
		if err != nil {
			return false, err
		}
		v, err := s.evalCond(items[0], depth+1)
		return !v, err
	}
	return false, errAt(n, "Template error: %s is not a condition function", fn)
}

// asText makes scalars compare by their text, as Fn::Equals does ("5" and
// 5 are equal).
func asText(n *node) *node {
	if n == nil {
		return nil
	}
	switch n.k {
	case kScalar:
		return scalar(n.pos, n.s)
	case kSeq:
		out := &node{k: kSeq, pos: n.pos}
		for _, e := range n.items {
			out.items = append(out.items, asText(e))
		}
		return out
	case kMap:
		out := &node{k: kMap, pos: n.pos, keys: n.keys, keyPos: n.keyPos}
		for _, v := range n.vals {
			out.vals = append(out.vals, asText(v))
		}
		return out
	}
	return n
}
