// Package ttl is Time to Live: the table's stored setting (TTL: enabled,
// and the attribute that holds each item's expiry time), the answers of
// UpdateTimeToLive and DescribeTimeToLive, and the expiry pass that
// deletes the items whose time has passed (Expire), which the engine's
// TTL worker runs every Options.TTLInterval.
//
// An item expires when its TTL attribute is a Number of epoch seconds in
// the past, and not more than five years so (Developer Guide, "Using
// time to live (TTL) in DynamoDB"). Expired items stay readable until a
// pass reaches them, as in DynamoDB.
//
// It uses the engine through Core, the narrow interface it declares: the
// lookup and change of a table's setting under the catalog's lock (the
// members of a global table share it), the tables a pass visits, an
// iterator over a table's stored items, and the delete of one expired
// item through the engine's write pipeline (indexes, statistics and a
// REMOVE stream record marked as the service's; no capacity consumed,
// never throttled). The engine (emulator) checks the requests' shapes and
// implements Core; this package imports emulator/api, emulator/av and
// kv, never emulator (internal/archtest holds the rule).
package ttl
