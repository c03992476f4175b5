package backups

// On-demand backups: the stored form.
//
// Keyspace (two families beside emulator/internal/keyspace's keys.go):
//
//	'b' <account> 0x00 <region> 0x00 <backup id>  → JSON Meta
//	'c' <dataID:16> <encoded primary key>         → item (a copy of its row)
//
// The backup id is the ARN's suffix, "0" + 13-digit epoch ms + "-" + 8 hex
// digits, so a namespace's records sort by creation time (ListBackups'
// order) and a BackupArn names its record directly: account, Region and id
// come from the ARN. The record keeps the source table's metadata as it
// was at the request (schema, indexes, billing, SSE), which is what
// RestoreTableFromBackup rebuilds from. The data ID is random per backup,
// so a backup's rows are one range however many backups a table has, and
// DeleteBackup is one DeleteRange. Only item rows are copied: a restore
// rebuilds the index entries it keeps (restore.go).

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/kv"
)

const (
	// Backup and BackupData are the key families of the backup records
	// and of their rows (emulator/internal/keyspace's keys.go lists every family).
	Backup     = 'b'
	BackupData = 'c'

	statusCreating  = "CREATING"
	statusAvailable = "AVAILABLE"
	statusDeleted   = "DELETED"

	typeUser = "USER"
	// TypeSystem is the type of the backup DeleteTable keeps of a table
	// with PITR on.
	TypeSystem = "SYSTEM"

	// systemBackupRetention is how long DynamoDB keeps the SYSTEM backup of
	// a deleted table with PITR on.
	systemBackupRetention = 35 * 24 * time.Hour
)

// Meta is one backup's stored record.
type Meta struct {
	Version   int       `json:"v"`
	Account   string    `json:"account"`
	Region    string    `json:"region"`
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Type      string    `json:"type"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	SizeBytes int64     `json:"size"`
	ItemCount int64     `json:"items"`
	DataID    TableID   `json:"data"`
	// Failed is set when the job could not finish (a restart); the rows
	// are gone and Status is DELETED.
	Failed bool `json:"failed,omitempty"`
	// Table is the source table's metadata at the request, as the engine
	// stores it.
	Table json.RawMessage `json:"table"`
	// Owner is the process copying it, on a shared store (the engine's
	// lease.go): the leader fails it once that process is gone.
	Owner string `json:"proc,omitempty"`

	// table is the name and ID of Table, decoded with the record.
	table tableHead
}

// tableHead is what the records use of their table's stored metadata.
type tableHead struct {
	Name string  `json:"name"`
	ID   TableID `json:"id"`
}

func (m *Meta) ns() api.Namespace { return api.Namespace{Account: m.Account, Region: m.Region} }

// tableARN is the source table's ARN (the backup's account and Region).
func (m *Meta) tableARN() string { return m.ns().TableARN(m.table.Name) }

// ARN is the backup's ARN, in the source table's account and Region.
func (m *Meta) ARN() string { return m.tableARN() + "/backup/" + m.ID }

func prefix(ns api.Namespace) []byte {
	k := make([]byte, 0, 3+len(ns.Account)+len(ns.Region))
	k = append(k, Backup)
	k = append(k, ns.Account...)
	k = append(k, 0)
	k = append(k, ns.Region...)
	return append(k, 0)
}

// Key is the key of backup id's record in ns.
func Key(ns api.Namespace, id string) []byte { return append(prefix(ns), id...) }

// DataPrefix is the prefix of a backup's rows: the prefix plus an item's
// key after the table's item prefix.
func DataPrefix(id TableID) []byte {
	k := make([]byte, 0, 17)
	k = append(k, BackupData)
	return append(k, id[:]...)
}

// NewID returns the ARN suffix of a backup (or an export or import)
// created at now.
func NewID(now time.Time) (string, error) {
	var r [4]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	return fmt.Sprintf("%014d-%08x", now.UnixMilli(), binary.BigEndian.Uint32(r[:])), nil
}

// ParseARN splits arn:P:dynamodb:REGION:ACCOUNT:table/NAME/backup/ID
// (P the Region's partition); ok is false for anything else.
func ParseARN(s string) (ns api.Namespace, table, id string, ok bool) {
	// No 0x00: it separates account and Region in the record keys.
	f := strings.SplitN(s, ":", 6)
	if len(f) != 6 || f[0] != "arn" || f[2] != "dynamodb" || f[3] == "" || f[4] == "" || strings.IndexByte(s, 0) >= 0 {
		return ns, "", "", false
	}
	ns = api.Namespace{Account: f[4], Region: f[3]}
	if f[1] != ns.Partition() {
		return ns, "", "", false
	}
	parts := strings.Split(f[5], "/")
	if len(parts) != 4 || parts[0] != "table" || parts[1] == "" || parts[2] != "backup" || parts[3] == "" {
		return ns, "", "", false
	}
	return ns, parts[1], parts[3], true
}

func creatingKey(ns api.Namespace, table string) string {
	return ns.Account + "\x00" + ns.Region + "\x00" + table
}

// put stages m's record in b.
func put(b kv.Batch, m *Meta) error {
	m.Version = metaVersion
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return b.Set(Key(m.ns(), m.ID), v)
}

// metaVersion is the version the records are stored with (the engine's
// table metadata's).
const metaVersion = 1

// decode reads a stored record.
func decode(v []byte) (*Meta, error) {
	var m Meta
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(m.Table, &m.table); err != nil {
		return nil, err
	}
	return &m, nil
}

// Get reads a backup record, or nil when there is none.
func Get(r kv.Reader, ns api.Namespace, id string) (*Meta, error) {
	v, err := r.Get(Key(ns, id))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	m, err := decode(v)
	if err != nil {
		return nil, fmt.Errorf("emulator: backup record %s: %w", id, err)
	}
	return m, nil
}

// scan decodes every record under p (the family's, of all namespaces or
// one); what names a record in an error.
func scan(r kv.Reader, p []byte, what string) ([]*Meta, error) {
	it, err := r.NewIter(p, kv.PrefixEnd(p))
	if err != nil {
		return nil, err
	}
	var out []*Meta
	for ok := it.First(); ok; ok = it.Next() {
		m, err := decode(it.Value())
		if err != nil {
			_ = it.Close()
			return nil, fmt.Errorf("emulator: %s at %q: %w", what, it.Key(), err)
		}
		out = append(out, m)
	}
	if err := it.Error(); err != nil {
		_ = it.Close()
		return nil, err
	}
	return out, it.Close()
}

// newMeta builds the record of a backup of src taken at now.
func newMeta(c Core, ns api.Namespace, src Source, name, typ string, now time.Time) (*Meta, error) {
	id, err := NewID(now)
	if err != nil {
		return nil, err
	}
	// Random as a table ID is (a version-4 UUID's bits).
	var dataID TableID
	if _, err := rand.Read(dataID[:]); err != nil {
		return nil, err
	}
	dataID[6] = (dataID[6] & 0x0f) | 0x40
	dataID[8] = (dataID[8] & 0x3f) | 0x80
	m := &Meta{Account: ns.Account, Region: ns.Region, ID: id, Name: name, Type: typ,
		Status: statusCreating, CreatedAt: now, DataID: dataID, Table: src.Table, Owner: c.JobOwner(),
		ItemCount: src.ItemCount, SizeBytes: src.SizeBytes, table: tableHead{Name: src.Name, ID: src.ID}}
	if typ == TypeSystem {
		m.ExpiresAt = now.Add(systemBackupRetention)
	}
	return m, nil
}
