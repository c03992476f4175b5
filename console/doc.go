// Package console is ExtendDB's web console, served under /console/ on the
// API port: namespaces, tables and their descriptions, items (Scan page by
// page, Query, view as DynamoDB JSON and plain JSON, create, edit and delete
// conditional on the version seen), stream records, and the throttling
// timeline fed by a Recorder (an emulator.Observer).
//
// Pages are server-rendered with html/template from embedded files; a little
// JavaScript draws the live timeline as SVG. Every read and write goes
// through the engine's Go API, so the console gets the same validation and
// the same errors as the wire, and holds no DynamoDB logic of its own.
package console
