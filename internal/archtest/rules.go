package archtest

// Rules are ExtendDB's dependency rules (DESIGN.md, "Layout and dependency
// direction"; docs/adr/0001-kv-contract-package.md).
func Rules() []Rule {
	return []Rule{
		{From: "kv", Allow: []string{}, Why: "kv is the storage contract: it imports nothing of ours"},
		{From: "throttle", Allow: []string{}, Why: "throttle is pure: it imports nothing of ours"},
		{From: "progress", Allow: []string{}, Why: "progress is a leaf: it counts and reports through a callback, so the engine and the loaders log it their own way"},
		{From: "policy", Allow: []string{}, Why: "policy documents are a pure leaf: the engine validates and evaluates with them, the wire parses identity policies"},
		{From: "hotkeys", Allow: []string{}, Why: "the hot-key sketch is a pure leaf: the engine feeds it, it knows no DynamoDB"},
		{From: "objstore", Allow: []string{}, TestsExcepted: true, Why: "the S3 stand-in's contract and folder store are a leaf; its tests use its conformance suite"},
		{From: "objstore/s3store", Allow: []string{"objstore"}, TestsExcepted: true, Why: "the S3 endpoint store knows only objstore's contract"},
		{From: "objstore/objstoretest", Allow: []string{"objstore"}, Why: "the conformance suite tests the contract only"},
		{From: "emulator", Deny: []string{"objstore/s3store"}, TestsExcepted: true, Why: "the engine uses the objstore contract; cmd picks the store"},
		{From: "pebblestore", Allow: []string{"kv"}, Why: "pebblestore knows only the kv contract"},
		{From: "pgstore", Allow: []string{"kv"}, TestsExcepted: true, Why: "pgstore knows only the kv contract; its tests use kvtest and pgtest"},
		{From: "emulator", Deny: []string{"wire", "iac", "cmd", "pebblestore", "pgstore", "internal/testserver", "sink"}, TestsExcepted: true,
			Why: "the engine knows no HTTP, no IaC and no concrete store or sink"},
		{From: "sink", Allow: []string{"emulator"}, TestsExcepted: true,
			Why: "a sink implements an interface the engine declares (emulator.KinesisSink) and knows nothing else of ours; its tests may start a server"},
		{From: "emulator/partiql", Allow: []string{"emulator/av"}, TestsExcepted: true,
			Why: "the PartiQL parser is a leaf: text and attribute values only, no engine"},
		{From: "emulator/ion", Allow: []string{"emulator/av"}, TestsExcepted: true,
			Why: "the Ion text codec of exports and imports is a leaf: text and attribute values only"},
		{From: "wire", Deny: []string{"iac", "cmd"}, Why: "wire serves the engine; IaC loading is cmd's wiring"},
		{From: "iac", Deny: []string{"wire", "cmd", "pebblestore"}, TestsExcepted: true,
			Why: "iac provisions through the emulator's API only"},
		{From: "console", Deny: []string{"wire", "iac", "cmd", "pebblestore", "metrics"}, TestsExcepted: true,
			Why: "the console reads and writes through the engine's Go API only"},
		{From: "metrics", Deny: []string{"iac", "cmd", "pebblestore", "console"}, TestsExcepted: true,
			Why: "metrics observes the engine and the wire; cmd hands it the store's metrics"},
		{From: "extenddbtest", Deny: []string{"cmd", "internal/testserver"},
			Why: "extenddbtest is the public in-process server: it wires wire, emulator, pebblestore and iac as cmd does, without cmd"},
		{From: "internal/loadgen", Allow: []string{}, TestsExcepted: true,
			Why: "the load generator sees the server only as a client does, over HTTP; its tests may start one in-process"},
		{From: "scripts/memprobe", Allow: []string{},
			Why: "the memory probe sees the server only as a client does, over HTTP and /proc"},
		{From: "", Deny: []string{"cmd"}, Why: "nothing imports a command"},
		{From: "", Deny: []string{"internal/testserver"}, TestsExcepted: true, Why: "testserver is for tests only"},
		{From: "", Deny: []string{"internal/pgtest"}, TestsExcepted: true, Why: "pgtest makes throwaway databases for tests only"},
		{From: "internal/pgtest", Allow: []string{}, Why: "pgtest is a leaf: it talks to PostgreSQL with pgx and knows nothing of ours"},
	}
}
