package expr

import (
	"container/list"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/extenddb/extenddb/emulator/av"
)

// Cache keeps parsed expression texts so that a text seen before is not
// parsed again. It holds syntax only (placeholders unresolved), so one entry
// serves every request whatever its names and values. Safe for concurrent
// use; a nil *Cache parses every time.
type Cache struct {
	mu  sync.Mutex
	max int
	ll  *list.List
	m   map[cacheKey]*list.Element
}

type cacheKey struct {
	mode mode
	text string
}

type cacheEntry struct {
	key cacheKey
	p   *parsed
}

// DefaultCacheSize is the number of expressions NewCache(0) keeps.
const DefaultCacheSize = 4096

// NewCache returns a cache of at most max expressions (DefaultCacheSize if
// max <= 0), evicting the least recently used.
func NewCache(max int) *Cache {
	if max <= 0 {
		max = DefaultCacheSize
	}
	return &Cache{max: max, ll: list.New(), m: make(map[cacheKey]*list.Element)}
}

// Len returns the number of cached expressions.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

func (c *Cache) parse(m mode, text string) *parsed {
	if c == nil {
		return parseMode(m, text)
	}
	k := cacheKey{m, text}
	c.mu.Lock()
	if e, ok := c.m[k]; ok {
		c.ll.MoveToFront(e)
		p := e.Value.(*cacheEntry).p
		c.mu.Unlock()
		return p
	}
	c.mu.Unlock()
	// Parse outside the lock; two goroutines may parse the same text once
	// each, which is harmless.
	p := parseMode(m, text)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*cacheEntry).p
	}
	c.m[k] = c.ll.PushFront(&cacheEntry{k, p})
	for c.ll.Len() > c.max {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.m, last.Value.(*cacheEntry).key)
	}
	return p
}

// usage records which placeholders the expressions of a request used.
type usage struct {
	names  map[string]struct{}
	values map[string]struct{}
}

// Params is the expression context of one request: its
// ExpressionAttributeNames and ExpressionAttributeValues, and which of them
// the request's expressions have used so far. Parse each expression of the
// request through the same Params, then call CheckUnused. Not safe for
// concurrent use (one request, one goroutine); the results are.
type Params struct {
	names  map[string]string
	values map[string]av.Value
	cache  *Cache
	used   usage
}

// NewParams returns the context for one request. cache may be nil.
func NewParams(names map[string]string, values map[string]av.Value, cache *Cache) *Params {
	// A placeholder is marked used only after it was found in its map, so
	// a request without one of the maps needs no set for it.
	p := &Params{names: names, values: values, cache: cache}
	if names != nil {
		p.used.names = make(map[string]struct{}, len(names))
	}
	if values != nil {
		p.used.values = make(map[string]struct{}, len(values))
	}
	return p
}

// An attribute name of 65,536 bytes or more: DynamoDB's answer, in the
// request-validation envelope.
const (
	maxAttrNameBytes    = 65535
	msgAttrNameTooLarge = "1 validation error detected: Attribute name is too large, must be less than 65536 bytes"
)

// CheckPlaceholders validates the two maps themselves: present but empty,
// keys that are too long or not #name / :name, empty attribute names.
func (p *Params) CheckPlaceholders() error {
	if p.names != nil {
		if len(p.names) == 0 {
			return errorf("ExpressionAttributeNames must not be empty")
		}
		for _, k := range sortedKeys(p.names) {
			if len(k) > 255 {
				return errorf("ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: ", strconv.Itoa(len(k)))
			}
			if !validPlaceholder(k, '#') {
				return errorf(`ExpressionAttributeNames contains invalid key: Syntax error; key: "`, k, `"`)
			}
			if p.names[k] == "" {
				return errorf("ExpressionAttributeNames contains invalid value: Empty attribute name for key ", k)
			}
			if len(p.names[k]) > maxAttrNameBytes {
				return errorf(msgAttrNameTooLarge)
			}
		}
	}
	if p.values != nil {
		if len(p.values) == 0 {
			return errorf("ExpressionAttributeValues must not be empty")
		}
		for _, k := range sortedKeys(p.values) {
			if len(k) > 255 {
				return errorf("ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;")
			}
			if !validPlaceholder(k, ':') {
				return errorf(`ExpressionAttributeValues contains invalid key: Syntax error; key: "`, k, `"`)
			}
		}
	}
	return nil
}

func validPlaceholder(k string, c byte) bool {
	if len(k) < 2 || k[0] != c {
		return false
	}
	for i := 1; i < len(k); i++ {
		if !isWord(k[i]) {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// CheckUnused returns DynamoDB's error for names, then values, that no
// expression of the request used. DynamoDB lists the keys in the order of a
// Java HashSet built from the map; javaSetOrder reproduces it.
func (p *Params) CheckUnused() error {
	var unused []string
	for _, k := range sortedKeys(p.names) {
		if _, ok := p.used.names[k]; !ok {
			unused = append(unused, k)
		}
	}
	if len(unused) > 0 {
		return errorf("Value provided in ExpressionAttributeNames unused in expressions: keys: {",
			strings.Join(javaSetOrder(unused, len(p.names)), ", "), "}")
	}
	for _, k := range sortedKeys(p.values) {
		if _, ok := p.used.values[k]; !ok {
			unused = append(unused, k)
		}
	}
	if len(unused) > 0 {
		return errorf("Value provided in ExpressionAttributeValues unused in expressions: keys: {",
			strings.Join(javaSetOrder(unused, len(p.values)), ", "), "}")
	}
	return nil
}

// javaHash is Java's String.hashCode (placeholder keys are ASCII).
func javaHash(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ {
		h = 31*h + int32(s[i])
	}
	return h
}

// JavaSetOrder orders names as DynamoDB lists a java.util.HashSet it built
// by adding them in the order given (by hash bucket; in one bucket, as
// given).
func JavaSetOrder(names []string) []string { return javaSetOrder(names, len(names)) }

// javaSetOrder orders keys as a java.util.HashSet made from total keys
// iterates them: by bucket, then (keys in one bucket) as given.
func javaSetOrder(keys []string, total int) []string {
	want := max(int(float64(total)/0.75)+1, 16)
	capacity := 1
	for capacity < want {
		capacity *= 2
	}
	slot := func(k string) int {
		h := uint32(javaHash(k))
		return int((h ^ h>>16) & uint32(capacity-1))
	}
	out := append([]string(nil), keys...)
	sort.SliceStable(out, func(i, j int) bool { return slot(out[i]) < slot(out[j]) })
	return out
}

// prepare applies the checks common to every expression parameter and
// returns the (cached) syntax tree.
func (p *Params) prepare(param string, m mode, text string) (*parsed, error) {
	if text == "" {
		return nil, errorf("Invalid ", param, ": The expression can not be empty;")
	}
	if len(text) > MaxExpressionSize {
		return nil, errorf("Invalid ", param, ": Expression size has exceeded the maximum allowed size; expression size: ", strconv.Itoa(len(text)))
	}
	ps := p.cache.parse(m, text)
	if ps.err != "" {
		return nil, errorf("Invalid ", param, ": ", ps.err)
	}
	return ps, nil
}

func (p *Params) binder() *binder {
	return &binder{names: p.names, values: p.values, used: &p.used}
}

func (p *Params) condition(param, text string) (*Condition, error) {
	ps, err := p.prepare(param, mCond, text)
	if err != nil {
		return nil, err
	}
	b := p.binder()
	var c *cond
	if msg := b.run(func() { c = b.cond(ps.cond) }); msg != "" {
		return nil, errorf("Invalid ", param, ": ", msg)
	}
	return &Condition{root: c}, nil
}

// Condition parses and binds a ConditionExpression.
func (p *Params) Condition(text string) (*Condition, error) {
	return p.condition("ConditionExpression", text)
}

// Filter parses and binds a FilterExpression.
func (p *Params) Filter(text string) (*Condition, error) {
	return p.condition("FilterExpression", text)
}

// Update parses and binds an UpdateExpression.
func (p *Params) Update(text string) (*Update, error) {
	ps, err := p.prepare("UpdateExpression", mUpdate, text)
	if err != nil {
		return nil, err
	}
	b := p.binder()
	var acts []action
	if msg := b.run(func() { acts = b.updateActions(ps.actions) }); msg != "" {
		return nil, errorf("Invalid UpdateExpression: ", msg)
	}
	return &Update{actions: acts}, nil
}

// Projection parses and binds a ProjectionExpression.
func (p *Params) Projection(text string) (*Projection, error) {
	ps, err := p.prepare("ProjectionExpression", mProj, text)
	if err != nil {
		return nil, err
	}
	b := p.binder()
	paths := make([]Path, len(ps.paths))
	msg := b.run(func() {
		for i, s := range ps.paths {
			paths[i] = b.resolve(s, true)
		}
		b.checkOverlaps(paths)
	})
	if msg != "" {
		return nil, errorf("Invalid ProjectionExpression: ", msg)
	}
	return &Projection{paths: paths}, nil
}

// Request lists the expression parameters of one request; nil means absent.
type Request struct {
	Names                  map[string]string
	Values                 map[string]av.Value
	UpdateExpression       *string
	ConditionExpression    *string
	KeyConditionExpression *string
	FilterExpression       *string
	ProjectionExpression   *string
}

// Parsed holds the bound expressions of a request; absent ones are nil.
type Parsed struct {
	Update       *Update
	Condition    *Condition
	KeyCondition *KeyCondition
	Filter       *Condition
	Projection   *Projection
}

// Parse validates and binds every expression of a request in DynamoDB's
// order (placeholder maps; update, condition, filter, projection, key
// condition; unused names, then values; the key condition's form). cache
// may be nil.
func Parse(r Request, cache *Cache) (*Parsed, error) {
	p := NewParams(r.Names, r.Values, cache)
	if err := p.CheckPlaceholders(); err != nil {
		return nil, err
	}
	var out Parsed
	var err error
	if r.UpdateExpression != nil {
		if out.Update, err = p.Update(*r.UpdateExpression); err != nil {
			return nil, err
		}
	}
	if r.ConditionExpression != nil {
		if out.Condition, err = p.Condition(*r.ConditionExpression); err != nil {
			return nil, err
		}
	}
	if r.FilterExpression != nil {
		if out.Filter, err = p.Filter(*r.FilterExpression); err != nil {
			return nil, err
		}
	}
	if r.ProjectionExpression != nil {
		if out.Projection, err = p.Projection(*r.ProjectionExpression); err != nil {
			return nil, err
		}
	}
	if r.KeyConditionExpression != nil {
		if out.KeyCondition, err = p.KeyCondition(*r.KeyConditionExpression); err != nil {
			return nil, err
		}
	}
	if err := p.CheckUnused(); err != nil {
		return nil, err
	}
	if out.KeyCondition != nil {
		if err := out.KeyCondition.Check(); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// CheckParameterMix returns DynamoDB's errors for a request that combines
// expression and legacy parameters, or sends placeholders without
// expressions. expressions and legacy name the parameters present, in
// DynamoDB's order (e.g. {"UpdateExpression", "ConditionExpression"} and
// {"AttributeUpdates", "Expected"}); valueExprs names every expression
// parameter of the operation that can use values (for the "are null"
// message); namesSet and valuesSet tell whether the maps were sent.
func CheckParameterMix(expressions, legacy, valueExprs []string, namesSet, valuesSet bool) error {
	if len(expressions) > 0 && len(legacy) > 0 {
		return errorf("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {",
			strings.Join(legacy, ", "), "} Expression parameters: {", strings.Join(expressions, ", "), "}")
	}
	if namesSet && len(expressions) == 0 {
		return errorf("ExpressionAttributeNames can only be specified when using expressions")
	}
	if valuesSet && len(valueExprs) > 0 {
		usesValues := false
		for _, e := range expressions {
			if e != "ProjectionExpression" {
				usesValues = true
			}
		}
		if !usesValues {
			verb := " is null"
			if len(valueExprs) > 1 {
				verb = " are null"
			}
			return errorf("ExpressionAttributeValues can only be specified when using expressions: ", strings.Join(valueExprs, " and "), verb)
		}
	}
	return nil
}
