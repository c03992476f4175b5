package e2e_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/extenddb/extenddb/internal/testserver"
)

// pendingOperations are the DynamoDB operations this branch does not serve
// yet: each must still answer UnknownOperationException, so the set shrinks
// as they are added (the lead empties it when merging the branches that add
// them) and cannot go stale.
var pendingOperations = map[string]bool{}

// TestAPIWalk calls every operation of the aws-sdk-go-v2 DynamoDB client
// (each method taking a *dynamodb.<Op>Input) against the real server with
// an empty input, past the SDK's own validation, and fails where one
// answers UnknownOperationException (or a server error) unless it is
// pending, and where a pending one answers at all.
func TestAPIWalk(t *testing.T) {
	s := testserver.New(t)
	ops := sdkOperations(t)
	if len(ops) < 50 {
		t.Fatalf("found %d operations on *dynamodb.Client; the reflection no longer matches the SDK", len(ops))
	}
	names := map[string]bool{}
	for _, op := range ops {
		names[op.name] = true
	}
	for name := range pendingOperations {
		if !names[name] {
			t.Errorf("pendingOperations names %s, which is no operation of the SDK", name)
		}
	}
	noValidation := func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			// Operations without required members have no validation step.
			if _, ok := st.Initialize.Get("OperationInputValidation"); ok {
				_, err := st.Initialize.Remove("OperationInputValidation")
				return err
			}
			return nil
		})
	}
	client := reflect.ValueOf(s.Client)
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30e9)
			defer cancel()
			out := op.method.Func.Call([]reflect.Value{client, reflect.ValueOf(ctx), reflect.New(op.input), reflect.ValueOf(noValidation)})
			err, _ := out[1].Interface().(error)
			var re *smithyhttp.ResponseError
			if err != nil && !errors.As(err, &re) {
				// Failed before the request was sent, or unreadable.
				t.Fatalf("%s: no answer from the server: %v", op.name, err)
			}
			unknown := false
			var ae smithy.APIError
			if errors.As(err, &ae) && ae.ErrorCode() == "UnknownOperationException" {
				unknown = true
			}
			if re != nil && re.HTTPStatusCode() >= http.StatusInternalServerError {
				t.Errorf("%s with an empty input: HTTP %d: %v", op.name, re.HTTPStatusCode(), err)
			}
			switch {
			case unknown && !pendingOperations[op.name]:
				t.Errorf("%s answers UnknownOperationException", op.name)
			case !unknown && pendingOperations[op.name]:
				t.Errorf("%s answers (%v) but is listed in pendingOperations: remove it from the set", op.name, err)
			}
		})
	}
}

type sdkOperation struct {
	name   string
	method reflect.Method
	input  reflect.Type // the *Input struct type (not its pointer)
}

// sdkOperations lists the methods of *dynamodb.Client shaped
// Op(context.Context, *dynamodb.OpInput, ...func(*dynamodb.Options)), sorted.
func sdkOperations(t *testing.T) []sdkOperation {
	t.Helper()
	ct := reflect.TypeOf(&dynamodb.Client{})
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	var out []sdkOperation
	for i := range ct.NumMethod() {
		m := ct.Method(i)
		ft := m.Type // receiver first
		if ft.NumIn() != 4 || !ft.IsVariadic() || ft.In(1) != ctxType || ft.NumOut() != 2 {
			continue
		}
		in := ft.In(2)
		if in.Kind() != reflect.Pointer || in.Elem().Name() != m.Name+"Input" || in.Elem().PkgPath() != ct.Elem().PkgPath() {
			continue
		}
		out = append(out, sdkOperation{name: m.Name, method: m, input: in.Elem()})
	}
	sort.Slice(out, func(i, j int) bool { return strings.Compare(out[i].name, out[j].name) < 0 })
	return out
}
