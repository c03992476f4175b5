package emulator

import "context"

// Operations not implemented yet. Each answers UnknownOperationException so
// clients never see a 5xx; an implementation replaces its stub here.

func notImplemented(op string) error {
	return NewError(CodeUnknownOperation, "The operation %s is not supported yet by ExtendDB", op)
}

// Query is not implemented yet.
func (e *Engine) Query(ctx context.Context, ns Namespace, in *QueryInput) (*ReadManyOutput, error) {
	return nil, notImplemented("Query")
}

// Scan is not implemented yet.
func (e *Engine) Scan(ctx context.Context, ns Namespace, in *ScanInput) (*ReadManyOutput, error) {
	return nil, notImplemented("Scan")
}

// BatchGetItem is not implemented yet.
func (e *Engine) BatchGetItem(ctx context.Context, ns Namespace, in *BatchGetItemInput) (*BatchGetItemOutput, error) {
	return nil, notImplemented("BatchGetItem")
}

// BatchWriteItem is not implemented yet.
func (e *Engine) BatchWriteItem(ctx context.Context, ns Namespace, in *BatchWriteItemInput) (*BatchWriteItemOutput, error) {
	return nil, notImplemented("BatchWriteItem")
}
