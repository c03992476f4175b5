// Package metrics serves /metrics in Prometheus' text format: requests by
// operation and error type with their latency (fed by wire's OnRequest
// hook), consumed capacity and throttle refusals by table, index and reason
// (an emulator.Observer), item counts and sizes read from the engine at
// scrape time, and Pebble's own metrics.
//
// It reads the engine through its Go API only and keeps no DynamoDB logic.
package metrics
