// Package partiqlexec runs PartiQL statements (ExecuteStatement,
// BatchExecuteStatement, ExecuteTransaction) on the engine's classic
// operations. A statement parsed by emulator/partiql (once per text: the
// Executor caches parses) is checked, then translated into expression text
// with #names and :values for Query, Scan, GetItem, PutItem, UpdateItem,
// DeleteItem, TransactWriteItems and TransactGetItems, so validation,
// capacity, throttling, streams and indexes are those of the classic API.
// A SELECT's WHERE is evaluated on every item read, metered on the
// request's work meter.
//
// It uses the engine through Core, the narrow interface it declares: the
// item operations, the lookup and authorization of a statement's table
// (what it reads of the schema is Table: key attributes and the named
// index), the expression cache, the work meter and the
// transaction-cancellation error. The engine (emulator) checks the
// requests' shapes and implements Core; this package imports
// emulator/api, emulator/av, emulator/expr, emulator/partiql and
// emulator/work, never emulator (internal/archtest holds the rule).
package partiqlexec
