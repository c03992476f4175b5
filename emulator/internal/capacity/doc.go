// Package capacity is capacity accounting and throttling: the units a read
// or write consumes (ReadUnits, WriteUnits, IndexWrites) and the
// ConsumedCapacity a request returns (Consumed); the throttle manager the
// engine admits and charges requests with (Manager: the account, table,
// GSI and partition key value buckets of package throttle, the account
// check every request starts with, and the test controls the wire's
// /_extenddb/throttle endpoints call); the errors, ThrottlingReasons and
// transaction cancellation reasons of a refusal (ThrottleError,
// ThrottleCancellationReason, ThrottleResource); a batch's admissions
// (Batch); and the Observer told of every charge and refusal.
//
// The engine owns the catalog and the storage keys: it registers each
// table's throughput as it caches the table's metadata, keeps the handles
// (*throttle.Table, *throttle.Index) on its table and index metadata, and
// calls this package on the data path with values it already has (the
// time, the handle, the partition key value in its stored form), so
// metering adds no interface call and no allocation to a request. The
// package needs nothing else of the engine and so declares no Core.
//
// It imports emulator/api, emulator/av, emulator/internal/shape and
// throttle, never the engine.
package capacity
