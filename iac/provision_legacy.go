package iac

import (
	"context"
	"errors"
	"strings"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
)

// linkLegacyGlobals creates each declared global table version 2017.11.29
// over its provisioned members (CreateGlobalTable), or brings an existing
// one's Regions to the declared ones (UpdateGlobalTable), as Terraform's
// aws_dynamodb_global_table does. The engine refuses them unless it runs
// with --legacy-global-tables.
func linkLegacyGlobals(ctx context.Context, eng *emulator.Engine, specs []TableSpec, diags *Diagnostics) {
	done := map[*spec.LegacyGlobal]bool{}
	for i := range specs {
		g := specs[i].LegacyGlobal
		if g == nil || done[g] {
			continue
		}
		done[g] = true
		ns := api.Namespace{Account: g.Account, Region: g.Regions[0]}
		cur, err := eng.DescribeGlobalTable(ctx, ns, &api.DescribeGlobalTableInput{GlobalTableName: &g.Name})
		if err != nil {
			if !errors.Is(err, &api.Error{Code: api.CodeGlobalTableNotFound}) {
				diags.Errorf(g.Pos, "%s: DescribeGlobalTable: %v", g.Source, err)
				continue
			}
			in := &api.CreateGlobalTableInput{GlobalTableName: &g.Name}
			for _, r := range g.Regions {
				in.ReplicationGroup = append(in.ReplicationGroup, api.GlobalTableReplica{RegionName: &r})
			}
			if _, err := eng.CreateGlobalTable(ctx, ns, in); err != nil {
				diags.Errorf(g.Pos, "%s: CreateGlobalTable: %v%s", g.Source, err, legacyHint(err))
			}
			continue
		}
		have := map[string]bool{}
		for _, r := range cur.GlobalTableDescription.ReplicationGroup {
			have[r.RegionName] = true
		}
		want := map[string]bool{}
		in := &api.UpdateGlobalTableInput{GlobalTableName: &g.Name}
		for _, r := range g.Regions {
			want[r] = true
			if !have[r] {
				in.ReplicaUpdates = append(in.ReplicaUpdates, api.GlobalTableReplicaUpdate{Create: &api.GlobalTableReplica{RegionName: &r}})
			}
		}
		for _, r := range cur.GlobalTableDescription.ReplicationGroup {
			if !want[r.RegionName] {
				in.ReplicaUpdates = append(in.ReplicaUpdates, api.GlobalTableReplicaUpdate{Delete: &api.GlobalTableReplica{RegionName: &r.RegionName}})
			}
		}
		if len(in.ReplicaUpdates) == 0 {
			continue
		}
		if _, err := eng.UpdateGlobalTable(ctx, ns, in); err != nil {
			diags.Errorf(g.Pos, "%s: UpdateGlobalTable: %v", g.Source, err)
		}
	}
}

// legacyHint explains the error of a server without --legacy-global-tables.
func legacyHint(err error) string {
	var e *api.Error
	if errors.As(err, &e) && e.Code == api.CodeValidation && strings.Contains(e.Message, "2017.11.29 is not supported") {
		return " (start the server with --legacy-global-tables to serve global tables version 2017.11.29)"
	}
	return ""
}
