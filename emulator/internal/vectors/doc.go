// Package vectors is the pure part of vector indexes and SearchVectors:
// the distance functions and their scores, the exact top-K selection with
// its deterministic order among ties, the checks a written vector and a
// search vector get (with DynamoDB's messages), the vectors' stored form
// (little-endian float32), the write bytes an index change consumes, the
// SearchConditionExpression's terms and their check against the index's
// search schema (CheckTerms), and Cache, the in-memory copy of one index's
// vectors that searches scan exactly (recall 1.0, where DynamoDB's
// approximate search does not promise it).
//
// The engine (emulator/vector_*.go) owns the index definitions, stores
// the entries through its change feed and calls this package; it imports
// emulator/api, emulator/av and emulator/expr only (internal/archtest).
//
// Sources: Developer Guide, "Working with vector indexes" and
// "Troubleshooting vector search"; API Reference, SearchVectors,
// VectorIndex and VectorCapacity.
package vectors
