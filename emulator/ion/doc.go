// Package ion is the small Amazon Ion text codec DynamoDB's ION exports and
// imports need: an item line "$ion_1_0 {Item:{…}}" with numbers as Ion
// decimals, binaries as blobs and sets as lists annotated $dynamodb_SS,
// $dynamodb_NS or $dynamodb_BS. It reads the Ion text that such files hold
// (structs, lists, strings, symbols, annotations, numbers, blobs, bools,
// nulls, comments), not all of Ion. A leaf: it imports only emulator/av.
package ion
