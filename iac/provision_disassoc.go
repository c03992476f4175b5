package iac

import (
	"context"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/iac/spec"
)

// setDisassociationProtection gives each replica its declared
// disassociation protection (spec.TableSpec.DisassociationProtection)
// once every member is provisioned: a table has the setting only while
// it has replicas, so a global table's home Region, provisioned before its
// replicas are added, gets it here too. A table whose setting changes is
// Updated.
func setDisassociationProtection(ctx context.Context, eng *emulator.Engine, specs []TableSpec, outcomes []Outcome, diags *Diagnostics) {
	for i := range specs {
		s := &specs[i]
		want := s.DisassociationProtection
		if want == nil || outcomes[i].Action == Failed {
			continue
		}
		name := spec.Str(s.Name())
		ns := s.Namespace()
		for {
			out, err := eng.DescribeTable(ctx, ns, &api.DescribeTableInput{TableName: name})
			if err != nil {
				diags.Errorf(s.Pos, "%s: DescribeTable: %v", s.Source, err)
				break
			}
			cur := out.Table.DisassociationProtectionEnabled
			if cur == nil || *cur == *want {
				break // not (or no longer) a replica, or already as declared
			}
			if out.Table.TableStatus != "ACTIVE" {
				select {
				case <-ctx.Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
				continue
			}
			if _, err := eng.UpdateTable(ctx, ns, &api.UpdateTableInput{TableName: name, DisassociationProtectionEnabled: want}); err != nil {
				diags.Errorf(s.Pos, "%s: UpdateTable DisassociationProtectionEnabled: %v", s.Source, err)
				break
			}
			if outcomes[i].Action == Unchanged {
				outcomes[i].Action = Updated
			}
			break
		}
	}
}
