// Package jobs is the one home of the engine's background work:
//
//   - Workers, the periodic workers (TTL expiry, auto scaling, PITR trim…):
//     each a name, an interval and a pass, run on a ticker from Start until
//     Stop, which waits for the pass under way. A MayRun predicate (the
//     engine's "this process leads") is asked before each pass, so on a
//     store shared by several processes only the leader runs them.
//   - Group, the one-shot tasks the engine owns (exports, imports, backups,
//     restores): each runs in its own goroutine under the group's context,
//     which Stop cancels before waiting for them all.
//   - Claims, the set of jobs (by key) running in this process, so a job
//     the leader's poll finds again is started once.
//
// The engine registers its workers in New; adding one is one Register
// call. What a pass does, logs and persists is the engine's: this package
// knows nothing of it.
//
// A leaf: it imports only the standard library.
package jobs
