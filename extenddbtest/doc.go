// Package extenddbtest starts ExtendDB inside a Go test: a real server on
// a free loopback port, with an aws-sdk-go-v2 configuration pointed at it,
// stopped by t.Cleanup. It is the public counterpart of what ExtendDB's own
// tests use, for anyone testing code that talks to DynamoDB.
//
//	func TestOrders(t *testing.T) {
//		srv := extenddbtest.Start(t, extenddbtest.WithLoad("../infra"))
//		db := dynamodb.NewFromConfig(srv.Config)
//		// ...
//	}
//
// Data is in memory unless WithDataDir says otherwise; each Start is a new,
// empty server (plus the tables WithLoad provisions). The server throttles
// like DynamoDB; WithoutThrottling turns that off.
package extenddbtest
