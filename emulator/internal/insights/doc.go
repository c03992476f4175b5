// Package insights is Contributor Insights: the stored setting of a table
// or global secondary index (Setting: its status, ENABLING → ENABLED and
// DISABLING → DISABLED over the transition delay, its mode and the
// CloudWatch rule names it implies), the answers of
// UpdateContributorInsights, DescribeContributorInsights and
// ListContributorInsights built from plain inputs (a setting, the names of
// a table and its indexes, the time), and the counting of the most
// accessed and most throttled keys of each table and index whose setting
// is on (Registry and Counter, on the hotkeys package's sketches), with
// the report ExtendDB serves in place of CloudWatch's charts (Report).
//
// The engine owns the catalog, the locks and the request validation
// common to every operation: it finds the table or index a request names,
// stores the setting this package computes with the table's metadata, and
// feeds a Counter from its capacity accounting (chargeThroughput and the
// throttle checks in throttle_engine.go) with keys in their stored form
// (the 4-byte hash prefix and order-preserving encoding of the key
// attributes, without the storage family and table ID). A table or index
// without the setting has no Counter: its requests pay one nil check.
//
// It imports emulator/api, emulator/av and hotkeys, never the engine.
package insights
