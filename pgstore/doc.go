// Package pgstore is the kv contract over a PostgreSQL-protocol database
// (PostgreSQL, CockroachDB, YugabyteDB) with github.com/jackc/pgx/v5, so
// several ExtendDB processes can serve one store. It knows nothing of
// DynamoDB and imports only kv.
//
// The data is one table, (k bytea PRIMARY KEY, v bytea NOT NULL), created
// at Open if missing. Reads of the store run as single statements or, for a
// scan longer than one chunk, in a REPEATABLE READ READ ONLY transaction
// held until the iterator closes; a snapshot is such a transaction. A batch
// is one transaction sent in one round trip. Update is a SERIALIZABLE
// transaction, run again on a serialization failure or deadlock. Every
// commit is durable (synchronous_commit), so the sync flag is ignored.
// docs/adr/0006-postgres-store.md says why, and how the same SQL runs on
// CockroachDB and YugabyteDB.
package pgstore
