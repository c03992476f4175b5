// Package mcpserver is ExtendDB's Model Context Protocol server (`extenddb
// mcp`): tools an AI assistant calls to look at and change the tables of a
// running ExtendDB, built on the official Go MCP SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// It is a client of the server, as a user's application is: data and
// table operations go to Options.Endpoint as DynamoDB API requests (JSON
// 1.0, signed with SigV4) through the package's own small client
// (client.go), which keeps the retries and error texts of aws-sdk-go-v2's
// DynamoDB client without linking that client into every extenddb
// command; the throttle state and hot keys come from the server's own
// controls under /_extenddb/ (wire.ThrottleAdminPath,
// wire.InsightsAdminPath), as `extenddb throttle show` and `extenddb top`
// read them, and from the console's JSON (/console/api/timeline), whose
// hot partition keys its throttling page shows. Infrastructure as code is
// read with package iac on this side and provisioned over the API, unless
// Options.Provision provisions it into an engine directly (cmd does for
// the embedded server).
//
// The tools that change data (put_item, delete_item, load_iac and PartiQL
// statements other than SELECT) exist only when Options.AllowWrites is
// set; a read-only server neither lists nor runs them.
//
// New returns the *mcp.Server; the caller runs it on stdio
// (mcp.StdioTransport) or serves it over HTTP with Handler, which
// requires a bearer token.
package mcpserver
