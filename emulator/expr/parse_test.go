package expr

import (
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
)

// stdNames and stdValues are the placeholders most cases use; a case that
// leaves some unused gets the unused error unless it expects another.
var stdValues = map[string]av.Value{
	":s": S("x"), ":s2": S("y"), ":n": N("1"), ":n2": N("5"), ":b": B("\x01"),
	":bool": BOOL(true), ":null": NULL(), ":l": L(N("1")), ":m": M("k", S("v")),
	":ss": SS("a"), ":ns": NS("1"), ":bs": BS("\x01"),
	":t": S("SS"), ":badt": S("XX"),
}
var stdNames = map[string]string{"#a": "a", "#b": "b", "#size": "size"}

func parseOne(kind, text string) error {
	p := NewParams(stdNames, stdValues, nil)
	var err error
	switch kind {
	case "cond":
		_, err = p.Condition(text)
	case "filter":
		_, err = p.Filter(text)
	case "key":
		var k *KeyCondition
		if k, err = p.KeyCondition(text); err == nil {
			err = k.Check()
		}
	case "update":
		_, err = p.Update(text)
	case "proj":
		_, err = p.Projection(text)
	}
	return err
}

func TestParseErrors(t *testing.T) {
	long := "a = :s" + strings.Repeat(" ", 4091)
	cases := []struct {
		kind, text, want string
	}{
		// Empty and size.
		{"cond", "", "Invalid ConditionExpression: The expression can not be empty;"},
		{"filter", "", "Invalid FilterExpression: The expression can not be empty;"},
		{"update", "", "Invalid UpdateExpression: The expression can not be empty;"},
		{"proj", "", "Invalid ProjectionExpression: The expression can not be empty;"},
		{"key", "", "Invalid KeyConditionExpression: The expression can not be empty;"},
		{"cond", long, "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097"},
		{"cond", long[:4096], ""},
		// Syntax errors: token and near.
		{"update", "SET", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "SET"`},
		{"update", "INVALID SYNTAX", `Invalid UpdateExpression: Syntax error; token: "INVALID", near: "INVALID SYNTAX"`},
		{"update", "SET a = ", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "= "`},
		{"update", "SET a = list_append(a, 0)", `Invalid UpdateExpression: Syntax error; token: "0", near: ", 0)"`},
		{"cond", "attribute_type()", `Invalid ConditionExpression: Syntax error; token: ")", near: "()"`},
		{"cond", "user-name = :s", `Invalid ConditionExpression: Syntax error; token: "-", near: "user-name"`},
		{"proj", "l[a]", `Invalid ProjectionExpression: Syntax error; token: "a", near: "[a]"`},
		{"cond", "a = :s AND", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND"`},
		{"cond", "a", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "a"`},
		{"cond", "a == :s", `Invalid ConditionExpression: Syntax error; token: "=", near: "== :s"`},
		{"cond", "a = $", `Invalid ConditionExpression: Syntax error; token: "$", near: "= $"`},
		{"cond", "a = :s OR OR b = :s", `Invalid ConditionExpression: Syntax error; token: "OR", near: "OR OR b"`},
		{"cond", "NOT NOT a = :s", ""},
		{"cond", "a = :s NOT", `Invalid ConditionExpression: Syntax error; token: "NOT", near: ":s NOT"`},
		{"cond", "  )", `Invalid ConditionExpression: Syntax error; token: ")", near: "  )"`},
		{"cond", "a = :s  ", ""},
		{"cond", "a =  ", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "=  "`},
		{"cond", "a[01] = :s", `Invalid ConditionExpression: Syntax error; token: "1", near: "01]"`},
		{"cond", "_a = :s", `Invalid ConditionExpression: Syntax error; token: "_", near: "_a"`},
		{"cond", "a.and = :s", `Invalid ConditionExpression: Syntax error; token: "and", near: ".and ="`},
		{"update", "SET a = :s, set = :s", `Invalid UpdateExpression: Syntax error; token: "set", near: ", set ="`},
		{"cond", "a BETWEEN :n", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":n"`},
		{"cond", "a IN :n", `Invalid ConditionExpression: Syntax error; token: ":n", near: "IN :n"`},
		{"cond", "a = #", `Invalid ConditionExpression: Syntax error; token: "#", near: "= #"`},
		{"cond", "(a = :s", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":s"`},
		{"update", "set a = :s remove", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "remove"`},
		{"update", "SET a :s", `Invalid UpdateExpression: Syntax error; token: ":s", near: "a :s"`},
		// A parenthesised arithmetic is a SET value; doubled, redundant.
		{"update", "SET a = ((a - :n))", "Invalid UpdateExpression: The expression has redundant parentheses;"},
		{"update", "SET a = (a - :n", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ":n"`},
		{"update", "ADD a b", `Invalid UpdateExpression: Syntax error; token: "b", near: "a b"`},
		{"update", "FOO a", `Invalid UpdateExpression: Syntax error; token: "FOO", near: "FOO a"`},
		{"update", "SET a = 3", `Invalid UpdateExpression: Syntax error; token: "3", near: "= 3"`},
		{"proj", "a,", `Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","`},
		{"proj", "a b", `Invalid ProjectionExpression: Syntax error; token: "b", near: "a b"`},
		// Reserved words.
		{"cond", "comment = :s", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: comment"},
		// CONVERT and SIZE are on the published list but accepted.
		{"cond", "size = :s AND convert = :s", ""},
		{"cond", "a[2147483647] = :s", ""},
		{"cond", "a[2147483648] = :s", "Invalid ConditionExpression: List index is not within the allowable range; index: [2147483648]"},
		{"cond", "a[99999999999] = :s AND data = :s", "Invalid ConditionExpression: List index is not within the allowable range; index: [99999999999]"},
		{"proj", "a" + strings.Repeat(".b", 31), ""},
		{"proj", "a" + strings.Repeat(".b", 32), "Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33"},
		{"cond", "a.Name = :s", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Name"},
		{"update", "SET #a = :s, data = :s", "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: data"},
		{"proj", "a, year", "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: year"},
		// Placeholders.
		{"cond", "#x = :s", "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #x"},
		{"cond", "a = :x", "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :x"},
		{"cond", "a = :x AND #x = :s", "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :x"},
		{"update", "SET a = :x, #x = :s", "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #x"},
		{"proj", "#x", "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: #x"},
		// Functions.
		{"cond", "foo(a)", "Invalid ConditionExpression: Invalid function name; function: foo"},
		{"cond", "ATTRIBUTE_EXISTS(a)", "Invalid ConditionExpression: Invalid function name; function: ATTRIBUTE_EXISTS"},
		{"cond", "size(a)", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"},
		{"cond", "attribute_exists(a) = :s", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"},
		{"cond", "size(attribute_exists(a)) > :n", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"},
		{"cond", "if_not_exists(a, :s) = :s", "Invalid ConditionExpression: The function is not allowed in a condition expression; function: if_not_exists"},
		{"cond", "a = list_append(a, :l)", "Invalid ConditionExpression: The function is not allowed in a condition expression; function: list_append"},
		{"update", "SET a = size(b)", "Invalid UpdateExpression: The function is not allowed in an update expression; function: size"},
		{"update", "SET a = attribute_exists(b)", "Invalid UpdateExpression: The function is not allowed in an update expression; function: attribute_exists"},
		{"update", "SET a = if_not_exists(b)", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: if_not_exists, number of operands: 1"},
		{"update", "SET a = foo(b)", "Invalid UpdateExpression: Invalid function name; function: foo"},
		{"cond", "begins_with(a, :s, :s)", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 3"},
		{"cond", "size(a, b) > :n", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: size, number of operands: 2"},
		{"cond", "attribute_exists(a, b)", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: attribute_exists, number of operands: 2"},
		{"cond", "attribute_exists(:s)", "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists"},
		{"cond", "attribute_not_exists(:s)", "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_not_exists"},
		{"cond", "begins_with(a, :n)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"cond", "begins_with(a, size(b))", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"cond", "attribute_type(a, :n)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
		{"cond", "attribute_type(a, b)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: {SS,M,DECIMAL,DOUBLESET,HDS,N,B,DICT,INTSET,BOOL,HD,BS,INT,DECIMALSET,NULL,FLOAT,FS,S,L,NS,DOUBLE}"},
		{"cond", "attribute_type(a, size(b))", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"},
		{"cond", "attribute_type(size(a), :t)", "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_type"},
		{"cond", "a < :bool", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: <, operand type: BOOL"},
		{"cond", ":ss >= a", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: >=, operand type: SS"},
		{"cond", "a = :bool AND a <> :m", ""},
		{"cond", "a BETWEEN :l AND :n", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: L"},
		{"cond", "a BETWEEN a AND :n", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: BETWEEN, first operand: [a]"},
		{"cond", "a IN (:s, a)", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: IN, first operand: [a]"},
		{"cond", "size(:null) > :n", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: NULL"},
		{"cond", "a BETWEEN :b AND :s", "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {B:java.nio.HeapByteBuffer[pos=0 lim=1 cap=1]}, upper bound operand: AttributeValue: {S:x}"},
		{"cond", "attribute_type(a, :badt)", "Invalid ConditionExpression: Invalid attribute type name found; type: XX, valid types: {N,BS,L,B,NULL,M,S,SS,NS,BOOL}"},
		{"cond", "size(:n) > :n", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N"},
		{"cond", "size(:bool) > :n", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: BOOL"},
		{"cond", "contains(a, a)", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: contains, first operand: [a]"},
		{"cond", "a.b[1] = a.b[1]", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a, b, [1]]"},
		{"cond", "#a <> a", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: <>, first operand: [a]"},
		// BETWEEN bounds.
		{"cond", "a BETWEEN :n2 AND :n", "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}"},
		{"cond", "a BETWEEN :n AND :s", "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:x}"},
		// Parentheses.
		{"cond", "((a = :s))", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"cond", "((a)) = :s", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"cond", "(a = :s) AND ((b = :s))", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"cond", "((a = :s) AND b = :s)", ""},
		{"cond", "(a) = :s", ""},
		{"cond", "(size(a)) > :n", `Invalid ConditionExpression: Syntax error; token: ">", near: ") > :n"`},
		{"cond", "(size(a) > :n)", ""},
		{"cond", "((a) = :s)", ""},
		{"cond", "(NOT (a = :s))", ""},
		// Error precedence: parens before functions before reserved words.
		{"cond", "((size = :s)) AND foo(a)", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		// Text-only checks come in the order written, before any placeholder.
		{"cond", "data = :s AND foo(a)", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: data"},
		{"cond", "foo(a) AND data = :s", "Invalid ConditionExpression: Invalid function name; function: foo"},
		{"cond", "size(a) AND data = :s", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"},
		{"cond", "#x = :s AND data = :s", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: data"},
		{"cond", "#x = :s AND begins_with(a, :n, :n)", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 3"},
		// Then placeholders and operands, in the order written.
		{"cond", "a = :x AND #x = :s", "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :x"},
		{"cond", "begins_with(a, :n) AND #x = :s", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		// Update-specific.
		{"update", "ADD x :n SET a = :s ADD y :n", `Invalid UpdateExpression: The "ADD" section can only be used once in an update expression;`},
		{"update", "set a = :s SET b = :s", `Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		{"update", "SET a = :s, a = :n", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"update", "SET a = :s REMOVE a.b", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"},
		{"update", "SET a.b = :s REMOVE a[1]", "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]"},
		{"update", "SET #a.b = :s, a.c = :s", ""},
		{"update", "SET a = :s + :n", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"update", "SET a = b - :l", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand type: L"},
		{"update", "SET a = list_append(:s, b)", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S"},
		{"update", "SET a = list_append(b)", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"},
		{"update", "SET a = if_not_exists(:s, :s)", "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{"update", "ADD a :s", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"update", "ADD a :l", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"update", "DELETE a :n", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"update", "DELETE a :m", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: MAP, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"update", "ADD a :bool", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: BOOLEAN, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"update", "ADD a :ns DELETE b :ss", ""},
		{"update", "SET a = (b + :n)", ""}, // DynamoDB accepts a parenthesised arithmetic
		// An update checks its target names first, then overlaps, then each
		// action from the last to the first.
		{"update", "SET a = :x, #x = :s", "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #x"},
		{"update", "SET a = :x, a = :s", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"update", "SET a = :x, b = #y", "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #y"},
		{"update", "SET a = :x, b = :y", "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :y"},
		{"update", "SET a = :s + :x, b = :s + :n", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"update", "SET a = (b) + (:n)", ""},
		{"update", "SET a = list_append(if_not_exists(a, :l), :l)", ""},
		{"update", "REMOVE a[0], a[2], b.c", ""},
		// Projection.
		{"proj", "a, a.b", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"},
		{"proj", "a.b, a[0]", "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [0]]"},
		{"proj", "a.b, a.c, l[0], l[2], #size", ""},
		// Key conditions.
		{"key", "a = :s OR b = :s", "Invalid operator used in KeyConditionExpression: OR"},
		{"key", "NOT a = :s", "Invalid operator used in KeyConditionExpression: NOT"},
		{"key", "a IN (:s)", "Invalid operator used in KeyConditionExpression: IN"},
		{"key", "a <> :s", "Invalid operator used in KeyConditionExpression: <>"},
		{"key", "attribute_exists(a)", "Invalid operator used in KeyConditionExpression: attribute_exists"},
		{"key", "contains(a, :s)", "Invalid operator used in KeyConditionExpression: contains"},
		{"key", "size(a) = :n", "KeyConditionExpressions cannot contain nested operations"},
		{"key", "a = b", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"},
		{"key", "a.b = :s", "KeyConditionExpressions cannot have conditions on nested attributes"},
		{"key", ":s = :s", "Invalid condition in KeyConditionExpression: No key attribute specified"},
		{"key", "a = :s AND a = :s", "KeyConditionExpressions must only contain one condition per key"},
		{"key", "a = :s AND begins_with(b, :s)", ""},
		// Real DynamoDB accepts doubled parentheses in key conditions only.
		{"key", "((a = :s)) AND ((b = :s))", "Invalid KeyConditionExpression: The expression has redundant parentheses;"},
		{"key", "(a = :s AND b = :s)", ""},
		{"filter", "((a = :s)) AND ((b = :s))", "Invalid FilterExpression: The expression has redundant parentheses;"},
		{"cond", "((attribute_not_exists(pk)))", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{"cond", "(attribute_not_exists(pk)) AND (attribute_not_exists(#a))", ""},
		{"cond", "(a = :s AND (b = :s))", ""},
		{"key", ":s = a AND b BETWEEN :n AND :n2", ""},
		{"key", "begins_with(:s, b)", "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand"},
		{"key", ":n BETWEEN a AND :n2", "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand"},
		// Keywords are case-insensitive; names are case-sensitive.
		{"cond", "a = :s and not (b = :s) Or c between :n and :n2", ""},
		{"cond", "a in (:s, :s2)", ""},
	}
	for _, c := range cases {
		got := errMsg(t, parseOne(c.kind, c.text))
		if got != c.want {
			t.Errorf("%s %q:\n got  %q\n want %q", c.kind, c.text, got, c.want)
		}
	}
}

func TestINOperandLimit(t *testing.T) {
	vals := map[string]av.Value{}
	var refs []string
	for i := 0; i < 101; i++ {
		k := ":v" + itoa(i)
		vals[k] = N(itoa(i))
		refs = append(refs, k)
	}
	p := NewParams(nil, vals, nil)
	if _, err := p.Condition("a IN (" + strings.Join(refs[:100], ",") + ")"); err != nil {
		t.Fatalf("100 operands: %v", err)
	}
	_, err := p.Condition("a IN (" + strings.Join(refs, ",") + ")")
	if got := errMsg(t, err); !strings.Contains(got, "IN") || !strings.HasPrefix(got, "Invalid ConditionExpression: ") {
		t.Fatalf("101 operands: %q", got)
	}
}

func TestUnusedAndPlaceholderMaps(t *testing.T) {
	cases := []struct {
		name   string
		names  map[string]string
		values map[string]av.Value
		req    Request
		want   string
	}{
		{"unused name", map[string]string{"#a": "a", "#z": "z"}, nil,
			Request{ConditionExpression: ptr("attribute_exists(#a)")},
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#z}"},
		{"unused names sorted", map[string]string{"#z": "z", "#y": "y", "#a": "a"}, nil,
			Request{ConditionExpression: ptr("attribute_exists(#a)")},
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#y, #z}"},
		{"unused value", nil, map[string]av.Value{":v": S("x"), ":w": S("y")},
			Request{ConditionExpression: ptr("a = :v")},
			"Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"},
		{"unused keys in Java HashSet order", map[string]string{"#a": "a", "#b": "b", "#c": "c"}, nil,
			Request{ProjectionExpression: ptr("x")},
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#c, #a, #b}"},
		{"names reported before values", map[string]string{"#z": "z"}, map[string]av.Value{":w": S("y"), ":v": S("x")},
			Request{ConditionExpression: ptr("a = :v")},
			"Value provided in ExpressionAttributeNames unused in expressions: keys: {#z}"},
		{"name used only in projection counts", map[string]string{"#p": "p", "#c": "c"}, map[string]av.Value{":v": S("x")},
			Request{ConditionExpression: ptr("#c = :v"), ProjectionExpression: ptr("#p")}, ""},
		{"used across update and condition", map[string]string{"#u": "u"}, map[string]av.Value{":v": S("x"), ":w": S("y")},
			Request{UpdateExpression: ptr("SET #u = :v"), ConditionExpression: ptr("b = :w")}, ""},
		{"empty names", map[string]string{}, nil, Request{ProjectionExpression: ptr("a")},
			"ExpressionAttributeNames must not be empty"},
		{"empty values", nil, map[string]av.Value{}, Request{ConditionExpression: ptr("attribute_exists(a)")},
			"ExpressionAttributeValues must not be empty"},
		{"bad name key", map[string]string{"a": "a"}, nil, Request{ProjectionExpression: ptr("a")},
			`ExpressionAttributeNames contains invalid key: Syntax error; key: "a"`},
		{"bad value key", nil, map[string]av.Value{":a-b": S("x")}, Request{ConditionExpression: ptr("a = :v")},
			`ExpressionAttributeValues contains invalid key: Syntax error; key: ":a-b"`},
		{"update error before condition error", nil, nil,
			Request{UpdateExpression: ptr("SET"), ConditionExpression: ptr("")},
			`Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "SET"`},
		{"key condition and filter", nil, map[string]av.Value{":v": S("x")},
			Request{KeyConditionExpression: ptr("pk = :v"), FilterExpression: ptr("a = :v")}, ""},
		// Query checks its filter and projection before its key condition,
		// and the key condition's form after the unused placeholders.
		{"filter before key condition", nil, map[string]av.Value{":v": S("x")},
			Request{KeyConditionExpression: ptr("pk = :x"), FilterExpression: ptr("a = :y")},
			"Invalid FilterExpression: An expression attribute value used in expression is not defined; attribute value: :y"},
		{"unused before key form", nil, map[string]av.Value{":v": S("x"), ":w": S("y")},
			Request{KeyConditionExpression: ptr("pk = :v OR pk = :v")},
			"Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"},
		{"key form", nil, map[string]av.Value{":v": S("x")},
			Request{KeyConditionExpression: ptr("pk = :v OR pk = :v")},
			"Invalid operator used in KeyConditionExpression: OR"},
	}
	for _, c := range cases {
		c.req.Names, c.req.Values = c.names, c.values
		_, err := Parse(c.req, nil)
		if got := errMsg(t, err); got != c.want {
			t.Errorf("%s:\n got  %q\n want %q", c.name, got, c.want)
		}
	}
}

func TestCheckParameterMix(t *testing.T) {
	cases := []struct {
		expr, legacy, valueExprs []string
		names, values            bool
		want                     string
	}{
		{[]string{"ConditionExpression"}, []string{"Expected"}, []string{"ConditionExpression"}, false, false,
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"},
		{[]string{"UpdateExpression", "ConditionExpression"}, []string{"AttributeUpdates", "Expected"}, nil, false, false,
			"Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributeUpdates, Expected} Expression parameters: {UpdateExpression, ConditionExpression}"},
		{nil, nil, []string{"ConditionExpression"}, true, false, "ExpressionAttributeNames can only be specified when using expressions"},
		{nil, nil, []string{"ConditionExpression"}, false, true, "ExpressionAttributeValues can only be specified when using expressions: ConditionExpression is null"},
		{[]string{"ProjectionExpression"}, nil, []string{"KeyConditionExpression", "FilterExpression"}, false, true,
			"ExpressionAttributeValues can only be specified when using expressions: KeyConditionExpression and FilterExpression are null"},
		{[]string{"ProjectionExpression"}, nil, nil, true, false, ""},
		{[]string{"ConditionExpression"}, nil, []string{"ConditionExpression"}, true, true, ""},
	}
	for i, c := range cases {
		if got := errMsg(t, CheckParameterMix(c.expr, c.legacy, c.valueExprs, c.names, c.values)); got != c.want {
			t.Errorf("case %d:\n got  %q\n want %q", i, got, c.want)
		}
	}
}

func TestReservedWords(t *testing.T) {
	for _, w := range []string{"ABORT", "zone", "Size", "data", "NAME", "TTL", "flattern", "inNTER"} {
		if !IsReserved(w) {
			t.Errorf("%q should be reserved", w)
		}
	}
	for _, w := range []string{"", "a", "abort_", "REMOVE", "ZONES", "|", "AB|ORT", "ABORT|ABSOLUTE"} {
		if IsReserved(w) {
			t.Errorf("%q should not be reserved", w)
		}
	}
	if n := strings.Count(reservedWords, "|") - 1; n != 573 {
		t.Errorf("reserved word count = %d, want 573", n)
	}
}
