package partiqlexec

import (
	"context"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/partiql"
)

// executeStatement runs one PartiQL statement.
func (e engine) executeStatement(ctx context.Context, ns api.Namespace, in *api.ExecuteStatementInput) (*api.ExecuteStatementOutput, error) {
	p, err := e.pqPrepareLate(*in.Statement, in.Parameters)
	if err != nil {
		return nil, err
	}
	if p.st.Deferred != nil && p.st.Kind != partiql.Select {
		return nil, pqError(p.st.Deferred)
	}
	switch p.st.Kind {
	case partiql.Select:
		s, err := e.planSelect(ctx, ns, p, in.ConsistentRead != nil && *in.ConsistentRead)
		if err != nil {
			return nil, err
		}
		return e.runSelect(ctx, ns, s, in)
	case partiql.Exists:
		return nil, api.Validation("EXISTS can only be used in ExecuteTransaction write requests.")
	}
	w, err := e.translateWrite(ctx, ns, p, in.ReturnValuesOnConditionCheckFailure)
	if err != nil {
		return nil, err
	}
	item, cc, err := e.runWrite(ctx, ns, w, in.ReturnConsumedCapacity)
	if err != nil {
		return nil, err
	}
	out := &api.ExecuteStatementOutput{Items: []av.Item{}, ConsumedCapacity: cc}
	if len(item) > 0 {
		out.Items = append(out.Items, item)
	}
	return out, nil
}
