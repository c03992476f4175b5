// Package hotkeys finds the heaviest keys of a stream of weighted events
// over a sliding window, in bounded memory: the counting behind Contributor
// Insights (the most accessed and the most throttled keys of a table or
// index).
//
// A Sketch is a Space-Saving top-k summary: at most K counters, so a key
// that is never heavy costs nothing once it is evicted, and each reported
// count overestimates the true one by at most the counter's Err. A Window
// keeps one Sketch per time bucket (one minute by default) for a fixed
// number of buckets and merges the live ones on demand, so old traffic
// falls out of the answer bucket by bucket.
//
// It is a pure leaf: it imports nothing of ExtendDB, starts no goroutine
// and reads no clock; time comes in as a parameter, so a test replays a
// timeline without sleeping.
package hotkeys
