// Package txn is the part of DynamoDB's transactions that does not touch
// the write pipeline: the request checks of TransactWriteItems and
// TransactGetItems in the service's order (Validate, ValidateGet), the
// plan's rules (one operation per item, CheckDuplicates; one cancellation
// reason per action, Cancelled, ReasonOf), the ClientRequestToken
// idempotency window (State.Idempotent and the token's record on a
// shared store), and the set of items running transactions hold
// (State.Mark, State.Holds, WaitLock), which is what makes a lock wait
// conflict only on a transaction's own items.
//
// The engine (emulator) runs the validated actions: it resolves their
// tables, takes the item stripes, prepares each write and stages them all
// in one store batch, so a transaction commits whole or not at all. That
// phase stays in the engine because it is the write pipeline itself
// (prepare, stage, stripes, capacity, throttling).
//
// It uses the engine through Core, the narrow interface it declares:
// expression contexts, the engine's error answers, its clock and its
// store. It imports emulator/api, emulator/av, emulator/expr,
// emulator/internal/shape, kv and zerolog, never emulator (internal/archtest
// holds the rule). See the Developer Guide's "Amazon DynamoDB
// Transactions: How it works".
package txn
