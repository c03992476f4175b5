// Command extenddb runs ExtendDB, a local Amazon DynamoDB.
//
// Subcommands:
//
//	extenddb serve [flags]   serve the DynamoDB API (see docs/configuration.md)
//	extenddb validate PATH.. check Terraform/CloudFormation tables, print the plan
//	extenddb version         print the version, Go version and VCS revision
//	extenddb help [command]  print usage
//
// The command is thin on purpose: it turns flags (and EXTENDDB_* environment
// variables) into the Options of pebblestore (or pgstore, with --store),
// emulator and wire, wires them into an http.Server and shuts them down in
// order on SIGINT or SIGTERM.
//
// Adding a subcommand: write one file with a func(ctx, *cli, args) int and
// list it in commands (main.go). Adding a serve flag: a field in serveConfig,
// a line in serveConfig.register, a check in serveConfig.validate if it can
// be wrong, and a row in docs/configuration.md (TestConfigurationDocumentsEveryFlag
// fails until the row exists).
package main
