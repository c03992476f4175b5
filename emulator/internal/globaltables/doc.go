// Package globaltables is global tables, both versions. It owns:
//
//   - the per-table membership the engine stores with each table
//     (Membership, embedded in the engine's table metadata: the replication
//     group of version 2019.11.21, whose entries are Replica, and the record
//     of a legacy 2017.11.29 global table, Legacy), what the group implies
//     for a member's status, and DescribeTable's Replicas;
//   - the rules of UpdateTable's ReplicaUpdates that read the request and
//     the group (RequestRules, Prechecks, CheckOverrides) and the group
//     changes they make (Join, AddReplica, SetOverrides, Leave);
//   - the replication applier (Replicator: it drains the replicas'
//     outboxes, holding entries back for Options.ReplicationDelay), the
//     seeding jobs of new replicas (StartSeed, ResumeSeeds) and the
//     disassociation jobs of replicas leaving their group (Disassociate:
//     CheckDisassociation, StartDisassociation, ResumeDisassociations), with
//     the queued change's stored form (Entry);
//   - the six operations of legacy global tables (CreateGlobalTable,
//     DescribeGlobalTable, UpdateGlobalTable, ListGlobalTables,
//     Describe/UpdateGlobalTableSettings) and the aws:rep:* attributes a
//     legacy member stamps on its items (StampLegacyRep).
//
// It uses the engine through Core, the narrow interface it declares: the
// clock, logger and options, the catalog's lock, tables as plain views
// (Table) and the saving of their new memberships, UpdateTable, the
// outboxes and the application of one change (through the write pipeline,
// so the destination's indexes, streams and capacity follow), the steps of
// a seeding job and the job claims. The engine keeps what is its own: the
// requests' shape checks, the items' versions and the outbox keys its
// replication derivation stages with every local write, and the tables'
// side of a group change (a new replica's table, its overrides, the GSI
// and capacity changes repeated in every member).
//
// It imports emulator/api, emulator/av and zerolog, never emulator nor another
// capability (internal/archtest holds the rule).
package globaltables
