package globaltables

import (
	"context"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/rs/zerolog"
)

// Core is what global tables use of the engine: its clock, logger and
// options, the catalog (its lock, the lookup of tables as plain Table
// views, and the saving of new memberships), whether a table holds an
// item, UpdateTable, through which legacy settings changes go, the
// replication outboxes and the application of their changes, and the
// steps of a seeding job with the claim that runs it once.
type Core interface {
	// Now is the engine's clock.
	Now() time.Time
	// LegacyEnabled reports whether legacy (2017.11.29) global tables are
	// served as DynamoDB served them (Options.LegacyGlobalTables).
	LegacyEnabled() bool
	// TransitionDelay is how long CREATING, UPDATING and DELETING last
	// (Options.TransitionDelay; 0: no delay).
	TransitionDelay() time.Duration

	// LockCatalog and UnlockCatalog hold the catalog for a change: no
	// other request nor process changes it in between.
	LockCatalog()
	UnlockCatalog()
	// RLockCatalog and RUnlockCatalog hold the catalog for reading.
	RLockCatalog()
	RUnlockCatalog()

	// Table returns the table name of (account, region) not gone at now,
	// nil if there is none. The caller holds the catalog.
	Table(account, region, name string, now time.Time) *Table
	// LegacyTables returns the account's tables, not being deleted at now,
	// that are members of a legacy global table: those named name, or all
	// when name is "". The caller holds the catalog.
	LegacyTables(account, name string, now time.Time) []*Table
	// HasItems reports whether t holds an item.
	HasItems(t *Table) (bool, error)
	// SaveMemberships stores the tables with their Membership as given,
	// their other settings unchanged, in one batch. The caller holds the
	// catalog for a change.
	SaveMemberships(ts []*Table) error
	// UpdateTable is the engine's UpdateTable operation.
	UpdateTable(ctx context.Context, ns api.Namespace, in *api.UpdateTableInput) (*api.UpdateTableOutput, error)

	// Logger is the engine's logger.
	Logger() *zerolog.Logger
	// ReplicationDelay is how long a queued change is held back
	// (Options.ReplicationDelay; 0: none).
	ReplicationDelay() time.Duration
	// Outbox returns up to n queued changes of every replica, in key
	// order, after the key after (nil: from the first).
	Outbox(after []byte, n int) ([]Queued, error)
	// Destinations is the tables changes may be applied to now: every
	// table not being deleted, even one that has left its group (its
	// source was deleted), as it still gets what was queued for it.
	Destinations() Destinations
	// DropQueued deletes the queued change key.
	DropQueued(key []byte) error

	// ClaimJob marks the job named key running here, false if it already
	// is or another process leads; ReleaseJob ends the claim.
	ClaimJob(key string) bool
	ReleaseJob(key string)
	// SeedingTables is every replica, not being deleted, whose own group
	// entry is Seeding.
	SeedingTables() []*Table
	// SeedCursor is the last source item key rt's seeding job copied (nil:
	// none yet).
	SeedCursor(rt *Table) ([]byte, error)
	// ItemKeys returns up to n item keys of src after the key after (nil:
	// from its first item).
	ItemKeys(src *Table, after []byte, n int) ([][]byte, error)
	// SeedItem copies the item of src stored at key into rt, as a
	// replicated change with the item's version (nothing if it has been
	// deleted since it was listed).
	SeedItem(rt, src *Table, key []byte) error
	// SaveSeedCursor records that rt's seeding job copied every item up to
	// last; ErrTableGone if rt has been deleted.
	SaveSeedCursor(rt *Table, last []byte) error
	// FinishSeed clears the Seeding flag of rt's entry in every member and
	// drops the cursor, in one batch; ErrTableGone if rt has been deleted.
	FinishSeed(rt *Table) error

	// DisassociatingTables is every replica, not being deleted, whose own
	// group entry is Disassociating.
	DisassociatingTables() []*Table
	// FinishDisassociation removes rt's entry from every member's group
	// and drops rt's (Membership.FinishDisassociating), in one batch;
	// ErrTableGone if rt has been deleted.
	FinishDisassociation(rt *Table) error
}

// Table is what global tables read of a table. The engine builds it from
// its metadata; Membership is a copy the caller may replace and hand back
// to SaveMemberships.
type Table struct {
	Account, Region, Name string
	ID                    TableID
	Membership            Membership
	Deleting              bool
	StreamEnabled         bool
	StreamViewType        string
	// KeySchema is a comparable summary of the table's key schema.
	KeySchema         string
	BillingMode       string
	Read, Write       int64 // provisioned throughput
	LastPayPerRequest time.Time
	// TableClass is the table's class ("": STANDARD).
	TableClass       string
	TableClassUpdate time.Time
	// GSIs and LSIs are the live secondary indexes.
	GSIs, LSIs []Index
	// Ref is the engine's own handle of the table, which SaveMemberships
	// reads back.
	Ref any
}

// Index is what global tables read of a secondary index.
type Index struct {
	Name string
	// KeySchema is a comparable summary of the index's key schema.
	KeySchema   string
	Status      string
	Read, Write int64 // provisioned throughput
}

func (t *Table) ns() api.Namespace { return api.Namespace{Account: t.Account, Region: t.Region} }

// replicas returns the members of t's group in other Regions not gone at
// now.
func (t *Table) replicas(now time.Time) []*Replica { return t.Membership.Replicas(t.Region, now) }
