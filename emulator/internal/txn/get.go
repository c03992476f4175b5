package txn

import (
	"fmt"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/expr"
	"github.com/extenddb/extenddb/emulator/internal/shape"
)

// Get is one validated Get action of a TransactGetItems request.
type Get struct {
	TableName string
	Key       av.Item
	Proj      *expr.Projection
}

// ValidateGet runs the checks of a TransactGetItems request that need no
// table, as Validate does for TransactWriteItems, and returns one G per
// Get in request order; get is G's embedded Get.
func ValidateGet[G any](c Core, in *api.TransactGetItemsInput, get func(*G) *Get) ([]G, error) {
	if err := getShape(in); err != nil {
		return nil, err
	}
	gets := make([]G, len(in.TransactItems))
	for i, it := range in.TransactItems {
		if err := parseGet(c, it.Get, get(&gets[i])); err != nil {
			return nil, err
		}
	}
	return gets, nil
}

// getShape checks the members' shapes.
func getShape(in *api.TransactGetItemsInput) error {
	var v shape.Violations
	v.Enum("returnConsumedCapacity", in.ReturnConsumedCapacity, enumReturnConsumed...)
	listShape(&v, in.TransactItems != nil, len(in.TransactItems))
	if len(in.TransactItems) <= MaxItems {
		for i, it := range in.TransactItems {
			base := fmt.Sprintf("transactItems.%d.member.get", i+1)
			g := it.Get
			if g == nil {
				v.Null(base)
				continue
			}
			if g.Key == nil {
				v.Null(base + ".key")
			}
			v.TableRef(base+".tableName", g.TableName)
		}
	}
	return v.Err()
}

// parseGet checks one Get action without its table into g.
func parseGet(c Core, in *api.Get, g *Get) error {
	if err := shape.CheckBareName(*in.TableName); err != nil {
		return err
	}
	exprs := present(in.ProjectionExpression, "ProjectionExpression", nil)
	if err := expr.CheckParameterMix(exprs, nil, nil, in.ExpressionAttributeNames != nil, false); err != nil {
		return c.ExprError(err)
	}
	if err := av.ValidateItem(in.Key); err != nil {
		return c.ExprError(err)
	}
	p, err := c.ExprParams(in.ExpressionAttributeNames, nil)
	if err != nil {
		return err
	}
	if in.ProjectionExpression != nil {
		if g.Proj, err = p.Projection(*in.ProjectionExpression); err != nil {
			return c.ExprError(err)
		}
	}
	if err := p.CheckUnused(); err != nil {
		return c.ExprError(err)
	}
	g.TableName, g.Key = *in.TableName, in.Key
	return nil
}
