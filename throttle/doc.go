// Package throttle owns DynamoDB's capacity model as token buckets and names
// the cause of every refusal. It keeps buckets per table and direction, per
// partition key value and direction, per global secondary index (Index) and
// index partition key value, and per account aggregate in each Region and
// direction. Table and index buckets start with InitialSeconds (1) of their
// rate, an account's with one second, and every bucket keeps up to
// BurstSeconds (300) seconds of unused capacity.
//
// Admission is two-step so the engine can decide before it does the work and
// charge what the work actually consumed afterwards: Admit refuses only when a
// bucket the request touches has no positive balance; Charge then debits the
// exact consumed units, which may drive a balance below zero (refill repays
// the debt). A batch calls Admit and Charge per item.
//
// The package is pure: no I/O and no wall clock. Every call takes now, so a
// test replays a timeline exactly. It imports nothing of ExtendDB; the engine
// (package emulator) turns a Cause into DynamoDB's error.
package throttle
