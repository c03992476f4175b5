// Package autoscale is the auto scaling of provisioned capacity: the
// stored settings of a table's or GSI's read and write capacity (Scaling:
// the scalable target, minimum, maximum and role, and the target-tracking
// policy that Application Auto Scaling would hold on the service), the
// answers of DescribeTableReplicaAutoScaling and
// UpdateTableReplicaAutoScaling built from plain views of a table's
// global table members, and the worker pass (State.Pass) that reads the
// consumed capacity of every auto scaled capacity and changes its
// provisioned throughput as the service's alarms would.
//
// Where the settings live follows the service's rule for global tables:
// write settings are global (every member's metadata carries the same),
// read settings are per replica (only that Region's member carries them).
// Settings of a PAY_PER_REQUEST table are never accepted, and those left
// on a table switched to on-demand are inert and not described (Developer
// Guide, "Managing throughput capacity automatically with DynamoDB auto
// scaling").
//
// It uses the engine through Core, the narrow interface it declares: the
// members of a table's global table as views (Table, Index), the change
// of their settings under the catalog's lock, the auto scaled capacities
// with their throttle handles (whose Consumed counts the units charged),
// and UpdateTable's change of a provisioned throughput, so a change is
// validated, budgeted, persisted and applied as a user's would be. The
// engine (emulator) checks the requests' shapes and implements Core; this
// package imports emulator/api, throttle and zerolog, never emulator
// (internal/archtest holds the rule).
package autoscale
