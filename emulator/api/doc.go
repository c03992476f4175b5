// Package api is the vocabulary of the DynamoDB API as ExtendDB speaks it:
// the request and response shapes of every operation (control plane, data
// plane, PartiQL, backups, exports and imports, global tables, auto
// scaling, DynamoDB Streams) with their JSON tags as on the wire, Error
// with its codes and constructors, and Namespace, the (account, Region) a
// request lives in, with the ARNs it names.
//
// It holds data and the few pure helpers that go with it (Error's methods,
// Namespace's ARNs), no behaviour: the engine (emulator) validates and
// executes requests, the wire layer decodes and encodes them, and iac,
// console, metrics and the rest build and read them.
//
// It is a leaf: it imports only emulator/av (attribute values) and the
// standard library (internal/archtest enforces it).
package api
