// Package vectors is vector indexes' own part: an index's definition as
// the table's metadata stores it (Index) with CreateTable's and
// UpdateTable's checks of it (Shape, Check) and its description; an
// item's entry in it (EntryOf: the key, the float32 vector, the projected
// attributes, the inline filters) and the checks a written item gets, with
// DynamoDB's messages (CheckWrite); the distance functions and their
// scores, the exact top-K selection with its deterministic order among
// ties, the checks of a search vector, the vectors' stored form
// (little-endian float32), the write bytes an index change consumes, the
// SearchConditionExpression's terms and their check against the index's
// search schema (CheckTerms), and Cache, the in-memory copy of one index's
// vectors that searches scan exactly (recall 1.0, where DynamoDB's
// approximate search does not promise it).
//
// The engine (emulator/vector_*.go) keeps the indexes in the table's
// metadata, stages their entries through its change feed, runs their
// backfills and answers SearchVectors, calling this package; it imports
// emulator/api, emulator/av, emulator/expr and emulator/internal/shape
// only (internal/archtest).
//
// Sources: Developer Guide, "Working with vector indexes" and
// "Troubleshooting vector search"; API Reference, SearchVectors,
// VectorIndex, VectorIndexDescription and VectorCapacity.
package vectors
