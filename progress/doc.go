// Package progress owns the progress reports of long work (a GSI backfill,
// a large --load): a Meter counts what a job has done and hands a Report to
// a callback when the job starts, at most every Every while it runs, and
// when it ends, each with the count, the total when known and the rate.
//
// It is a leaf: it imports nothing of ExtendDB and does no logging itself,
// so the engine and the loaders log through their own loggers. A Meter
// starts no goroutine: a report is due on the Add that finds the interval
// passed, so work that stalls reports nothing until it moves again. Time
// comes from Meter.Now, so a test replays a timeline without sleeping.
package progress
