package emulator

// Operations not implemented yet. Each answers UnknownOperationException so
// clients never see a 5xx; an implementation replaces its stub here.

func notImplemented(op string) error {
	return NewError(CodeUnknownOperation, "The operation %s is not supported yet by ExtendDB", op)
}
