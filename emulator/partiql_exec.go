package emulator

import (
	"context"
	"fmt"

	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/partiql"
)

// statementShape checks a statement member's presence and length.
func statementShape(v *violations, path string, s *string) {
	if s == nil {
		v.null(path)
		return
	}
	v.length(path, *s, 1, maxStatementLength)
}

// statementListShape checks a list of statements' presence and length.
func statementListShape(v *violations, path string, present bool, n, hi int) {
	switch {
	case !present:
		v.null(path)
	case n < 1:
		v.add("'[]'", path, "Member must have length greater than or equal to 1")
	case n > hi:
		v.add(txListValue(n), path, fmt.Sprintf("Member must have length less than or equal to %d", hi))
	}
}

// ExecuteStatement runs one PartiQL statement.
func (e *Engine) ExecuteStatement(ctx context.Context, ns Namespace, in *ExecuteStatementInput) (*ExecuteStatementOutput, error) {
	ctx = partiqlContext(ctx)
	if in == nil {
		in = &ExecuteStatementInput{}
	}
	var v violations
	statementShape(&v, "statement", in.Statement)
	if in.Parameters != nil && len(in.Parameters) == 0 {
		v.add("[]", "parameters", "Member must have length greater than or equal to 1")
	}
	if in.NextToken != nil {
		v.length("nextToken", *in.NextToken, 1, 32768)
	}
	v.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, "INDEXES", "TOTAL", "NONE")
	v.min("limit", in.Limit, 1)
	v.enum("returnValuesOnConditionCheckFailure", in.ReturnValuesOnConditionCheckFailure, "ALL_OLD", "NONE")
	if err := v.err(); err != nil {
		return nil, err
	}
	p, err := e.pqPrepare(*in.Statement, in.Parameters)
	if err != nil {
		return nil, err
	}
	switch p.st.Kind {
	case partiql.Select:
		s, err := e.planSelect(ctx, ns, p, in.ConsistentRead != nil && *in.ConsistentRead)
		if err != nil {
			return nil, err
		}
		return e.runSelect(ctx, ns, s, in)
	case partiql.Exists:
		return nil, Validation("EXISTS can only be used in ExecuteTransaction write requests.")
	}
	w, err := e.translateWrite(ctx, ns, p, in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	item, cc, err := e.runWrite(ctx, ns, w, in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	out := &ExecuteStatementOutput{Items: []av.Item{}, ConsumedCapacity: cc}
	if len(item) > 0 {
		out.Items = append(out.Items, item)
	}
	return out, nil
}
