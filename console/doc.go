// Package console is ExtendDB's web console, served under /console/ on the
// API port: namespaces, tables and their descriptions, items (Scan page by
// page, Query, vector search, view as DynamoDB JSON and plain JSON, create, edit and delete
// conditional on the version seen), stream records, and the throttling
// timeline fed by a Recorder (an emulator.Observer).
//
// Pages are server-rendered with html/template from embedded files; a little
// JavaScript draws the live timeline as SVG. Every read and write goes
// through the engine's Go API, so the console gets the same validation and
// the same errors as the wire, and holds no DynamoDB logic of its own.
//
// With an Authenticator (--auth=sigv4; cmd wires wire.Credentials) the
// console asks for a sign-in (auth.go): a session held in memory behind a
// random HttpOnly, SameSite=Strict cookie, a CSRF token in every POST form,
// failed sign-ins logged and slowed per source address. Each request then
// carries the principal as the engine's Caller (emulator.WithCaller), so the
// item operations authorize themselves as they do for the API, and each
// page authorizes its own action with Engine.Authorize:
//
//	GET  /console/signin, POST /console/signin  none (the sign-in)
//	GET  /console/static/…                      none
//	POST /console/signout                       the session's CSRF token
//	GET  /console/                              dynamodb:ListTables (+ DescribeTable per table for its details;
//	                                            ListBulkOperations, DescribeBulkOperation per operation)
//	GET  /console/table                         dynamodb:DescribeTable (+ DescribeTimeToLive, DescribeContinuousBackups,
//	                                            ListTagsOfResource, extenddb:Throttle for those parts)
//	GET  /console/items                         dynamodb:Scan (on the index when one is chosen)
//	GET  /console/query                         dynamodb:Query (on the index when one is chosen)
//	GET  /console/search                        dynamodb:SearchVectors (on the vector index chosen)
//	GET  /console/item                          dynamodb:GetItem
//	GET  /console/new                           dynamodb:PutItem
//	POST /console/item                          create: PutItem; save: GetItem+PutItem; delete: GetItem+DeleteItem; CSRF token
//	GET  /console/stream                        dynamodb:DescribeTable; DescribeStream, GetShardIterator, GetRecords on the stream
//	GET  /console/throttle, /console/api/timeline  extenddb:Throttle (+ extenddb:GetInsights for the hottest keys)
//	GET  /console/iac                           lists the tables the principal may dynamodb:DescribeTable
//
// docs/configuration.md ("Console sign-in") describes the model.
package console
