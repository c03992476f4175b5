package expr

import (
	"errors"
	"testing"

	"github.com/extenddb/extenddb/emulator/av"
)

func S(s string) av.Value  { return av.Value{Type: av.TypeS, S: s} }
func N(s string) av.Value  { return av.Value{Type: av.TypeN, S: s} }
func B(s string) av.Value  { return av.Value{Type: av.TypeB, S: s} }
func BOOL(b bool) av.Value { return av.Value{Type: av.TypeBOOL, Bool: b} }
func NULL() av.Value       { return av.Value{Type: av.TypeNULL, Bool: true} }
func SS(m ...string) av.Value {
	return av.Value{Type: av.TypeSS, Set: m}
}
func NS(m ...string) av.Value { return av.Value{Type: av.TypeNS, Set: m} }
func BS(m ...string) av.Value { return av.Value{Type: av.TypeBS, Set: m} }
func L(v ...av.Value) av.Value {
	return av.Value{Type: av.TypeL, L: v}
}
func M(kv ...any) av.Value {
	m := map[string]av.Value{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(av.Value)
	}
	return av.Value{Type: av.TypeM, M: m}
}

func ptr[T any](v T) *T { return &v }

// errMsg returns the message of an *Error, or fails the test for any other
// non-nil error.
func errMsg(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *expr.Error", err, err)
	}
	return e.Message
}

func itemEqual(a, b av.Item) bool {
	return av.Equal(av.Value{Type: av.TypeM, M: a}, av.Value{Type: av.TypeM, M: b})
}

func dump(v av.Value) string {
	b := av.AppendJSON(nil, v)
	return string(b)
}

func dumpItem(it av.Item) string {
	return string(av.AppendItemJSON(nil, it))
}
