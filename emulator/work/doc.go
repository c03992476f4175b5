// Package work meters the long loops of one request: each loop counts its
// steps on a Meter, which every so often asks the request's context whether
// the request still stands, so that a request whose client has gone, or
// whose deadline has passed, stops within a few milliseconds instead of
// running to its end. The steps also add up in a counter the engine keeps,
// which shows that stopped work no longer moves.
//
// A pure leaf: it imports only the standard library.
package work
