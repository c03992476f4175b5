package emulator

// Disassociating a replica: the engine's side of UpdateTable's
// Disassociate and DisassociationProtectionEnabled, and the steps of the
// job emulator/internal/globaltables runs (disassociate.go there: its
// loop, its claim and its resumption at start).

import (
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
)

// disassociate marks the local replica Disassociating in its group, which
// syncGroup copies to every member; the job starts once the request has
// committed.
func (u *tableUpdate) disassociate() {
	u.t.StartDisassociating(u.t.Region, u.now)
	u.disassociating = true
}

// applyDisassociationProtection sets the local replica's protection and
// gives every member the group that records it.
func (u *tableUpdate) applyDisassociationProtection() error {
	if u.in.DisassociationProtectionEnabled == nil {
		return nil
	}
	u.t.SetProtection(u.t.Region, *u.in.DisassociationProtectionEnabled)
	u.syncGroup()
	return nil
}

// startDisassociation runs the disassociation job of rt, a replica whose
// own entry is Disassociating.
func (e *Engine) startDisassociation(rt *tableMeta) {
	e.repl.StartDisassociation((*gtCore)(e), gtTable(rt, e.now()))
}

func (c *gtCore) DisassociatingTables() []*globaltables.Table {
	return c.localMembers(func(r *globaltables.Replica) bool { return r.Disassociating })
}

func (c *gtCore) FinishDisassociation(rt *globaltables.Table) error {
	return seedErr((*Engine)(c).finishDisassociation(rt.Ref.(*tableMeta)))
}

// finishDisassociation removes rt's entry from the group of every other
// member and drops rt's group, in one batch.
func (e *Engine) finishDisassociation(rt *tableMeta) error {
	e.lockCatalog()
	defer e.unlockCatalog()
	now := e.now()
	cur, ok := e.live(rt)
	if !ok {
		return errTableGone
	}
	if own := cur.Member(cur.Region); own == nil || !own.Disassociating {
		return nil // already done
	}
	var updated []*tableMeta
	for _, r := range cur.Group {
		m := cur
		if r.Region != cur.Region {
			if m = e.liveMember(cur, r, now); m == nil {
				continue
			}
		}
		nm := m.clone()
		nm.FinishDisassociating(nm.Region, cur.Region, now)
		updated = append(updated, nm)
	}
	return e.saveTables(updated)
}
