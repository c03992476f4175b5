// Package backups is on-demand backups, point-in-time recovery and the
// restores of both:
//
//   - backups: the records and their keyspace, CreateBackup,
//     DescribeBackup, ListBackups and DeleteBackup, the job copying a
//     table's items from a snapshot, and the failing of copies a restart
//     interrupted (DeleteTable's SYSTEM backup too);
//   - point-in-time recovery: the table's setting (PITR, embedded in the
//     engine's table metadata), the undo log each write of a table with
//     PITR on adds to (Seq.StageUndo, fed by the engine's pitrDerivation),
//     the table as of a moment (AsOfIter) and the items changed between
//     two (ItemChanges), which exports read through the engine, the trim
//     of records no restorable time needs, and the answers of
//     UpdateContinuousBackups and DescribeContinuousBackups;
//   - restores: RestoreTableFromBackup and RestoreTableToPointInTime, and
//     the job filling the restored table through the engine's write path
//     with a persisted cursor (the table's Restore state is this
//     package's type).
//
// It uses the engine through its Core interface (implemented by the
// engine's bkCore, backups_core.go): the catalog, the store, the table
// metadata a backup keeps and a restore rebuilds, and the write path. It
// imports emulator/api, emulator/av, internal/jobs, internal/shape, kv,
// progress and zerolog, never the engine nor another capability.
package backups
