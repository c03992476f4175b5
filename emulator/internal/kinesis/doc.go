// Package kinesis is Kinesis Data Streams streaming destinations: a
// table's destinations (Destinations, stored with the table's metadata:
// statuses ENABLING → ACTIVE or ENABLE_FAILED, UPDATING → ACTIVE and
// DISABLING → DISABLED over the transition delay), the answers of
// Enable, Disable, Update and DescribeKinesisStreamingDestination, the
// record DynamoDB writes to Kinesis for an item change and its queue entry
// (staged in the write's own store batch through Queue), and the
// deliverer that sends the queue to a Sink (package sink/kinesis; cmd
// wires it), at least once.
//
// The engine owns the catalog, its locks and the request validation
// common to every operation: it looks up, copies and saves the table
// whose destinations change (Core, the narrow interface this package
// declares), keeps the queue's keys in its keyspace and hands each
// write's change to Stage.
//
// It imports emulator/api, emulator/av, kv and zerolog, never the engine
// (internal/archtest holds the rule).
package kinesis
