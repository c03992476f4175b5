package emulator

// Secondary indexes (GSIs and LSIs) as writes maintain them: the entry
// keys and projections (the layout is in write.go's header), the checks a
// new item's index key attributes get, and the index derivation, which
// stages each write's entries in its batch (derive.go). backfill.go fills
// an index that appears on a table with items.

import (
	"encoding/binary"
	"errors"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/av"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/shape"
	"github.com/extenddb/extenddb/kv"
)

// appendPartitionTuple appends h(enc(v1)|…|enc(vn)) | enc(v1)|…|enc(vn):
// the partition of a multi-attribute index key, hashed as one value. With
// one value it is appendPartition.
func appendPartitionTuple(dst []byte, vs []av.Value) []byte {
	n := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	for _, v := range vs {
		dst = av.AppendKey(dst, v)
	}
	binary.BigEndian.PutUint32(dst[n:], keyspace.Fnv32(dst[n+4:]))
	return dst
}

// splitKeySchema returns the HASH and the RANGE attributes of a key schema
// (every HASH entry precedes every RANGE one: CreateTable and UpdateTable
// enforce it).
func splitKeySchema(ks []keyElem) (hash, rng []keyElem) {
	n := 0
	for n < len(ks) && ks[n].KeyType == keyHash {
		n++
	}
	return ks[:n], ks[n:]
}

// indexPartitionPrefix is the prefix shared by every entry of index ix
// whose index partition key values (one per HASH attribute, in key schema
// order) are pk (Query on an index).
func indexPartitionPrefix(t *tableMeta, ix *indexMeta, pk []av.Value) []byte {
	return appendPartitionTuple(keyspace.IndexPrefix(t.ID, ix.ID), pk)
}

// indexKeyOf is the storage key of the entry of ix whose index and table
// key attributes are in k (an item in the index, or a validated start key).
// It runs for every index on every write, so it builds the key in one
// buffer (what appendPartitionTuple does, without a slice of values).
func indexKeyOf(t *tableMeta, ix *indexMeta, k av.Item) []byte {
	hash, rng := splitKeySchema(ix.KeySchema)
	b := make([]byte, 0, 80)
	b = append(b, keyspace.FamIndex)
	b = append(b, t.ID[:]...)
	b = binary.BigEndian.AppendUint32(b, ix.ID)
	n := len(b)
	b = append(b, 0, 0, 0, 0)
	for _, ke := range hash {
		b = av.AppendKey(b, k[ke.Name])
	}
	binary.BigEndian.PutUint32(b[n:], keyspace.Fnv32(b[n+4:]))
	for _, ke := range rng {
		b = av.AppendKey(b, k[ke.Name])
	}
	b = av.AppendKey(b, k[t.hashKey().Name])
	if rk, ok := t.rangeKey(); ok {
		b = av.AppendKey(b, k[rk.Name])
	}
	return b
}

// activeIndexes returns the indexes writes maintain: every LSI and every
// GSI not being deleted.
func activeIndexes(t *tableMeta) []*indexMeta {
	out := make([]*indexMeta, 0, len(t.LSIs)+len(t.GSIs))
	out = append(out, t.LSIs...)
	for _, ix := range t.GSIs {
		if !ix.Deleted {
			out = append(out, ix)
		}
	}
	return out
}

// indexEntry returns item's entry in ix and the entry's storage key, or nil
// when the item is not in the index (absent item, a key attribute missing
// or, for items that predate the index, of the wrong type or empty).
func indexEntry(t *tableMeta, ix *indexMeta, item av.Item) (av.Item, []byte) {
	if item == nil {
		return nil, nil
	}
	for i, ke := range ix.KeySchema {
		v, ok := item[ke.Name]
		if !ok || v.Type.String() != ke.Type || (v.Type != av.TypeN && v.S == "") || indexKeyTooLarge(i, v) {
			return nil, nil
		}
	}
	return projectEntry(t, ix, item), indexKeyOf(t, ix, item)
}

// projectEntry keeps the attributes ix projects: everything for ALL, else
// the table and index keys plus (INCLUDE) the listed non-key attributes.
func projectEntry(t *tableMeta, ix *indexMeta, item av.Item) av.Item {
	if ix.ProjectionType == "ALL" {
		return item
	}
	out := make(av.Item, 4+len(ix.NonKeyAttrs))
	for _, ke := range t.KeySchema {
		out[ke.Name] = item[ke.Name]
	}
	for _, ke := range ix.KeySchema {
		out[ke.Name] = item[ke.Name]
	}
	if ix.ProjectionType == "INCLUDE" {
		for _, n := range ix.NonKeyAttrs {
			if v, ok := item[n]; ok {
				out[n] = v
			}
		}
	}
	return out
}

// indexKeyLimit is the size limit of the index key attribute at position
// i of an index key schema: DynamoDB's 2,048 bytes for a partition key and
// 1,024 for a sort key, as for the table's own keys.
func indexKeyLimit(i int) int {
	if i == 0 {
		return av.MaxHashKeySize
	}
	return av.MaxRangeKeySize
}

// indexKeyTooLarge reports whether v, at position i of an index key schema,
// is over its limit.
func indexKeyTooLarge(i int, v av.Value) bool {
	return av.Size(v) > indexKeyLimit(i)
}

// validateIndexKeys rejects an item to be stored whose index key attributes
// have the wrong type, are empty or too large, with DynamoDB's messages.
// Missing attributes are fine: the item is simply not in that index.
func validateIndexKeys(t *tableMeta, item av.Item) error {
	return validateIndexKeysOver(t, nil, item)
}

// validateIndexKeysOver is validateIndexKeys for a write replacing old
// (nil: none): a vector index checks only the values the write changes.
func validateIndexKeysOver(t *tableMeta, old, item av.Item) error {
	if len(t.Vectors) > 0 {
		if err := validateVectors(t, old, item); err != nil {
			return err
		}
	}
	for _, ix := range activeIndexes(t) {
		for i, ke := range ix.KeySchema {
			v, ok := item[ke.Name]
			if !ok {
				continue
			}
			if v.Type.String() != ke.Type {
				return shape.InvalidParam("Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", ke.Name, ke.Type, v.Type.String(), ix.Name)
			}
			if v.Type != av.TypeN && v.S == "" {
				kind := "string"
				if v.Type == av.TypeB {
					kind = "binary"
				}
				return api.Validation("One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s", kind, ix.Name, ke.Name)
			}
			if indexKeyTooLarge(i, v) {
				return shape.InvalidParam("Size limit exceeded for Index Key %s Actual Size: %d bytes Max Size: %d bytes IndexName: %s", ke.Name, av.Size(v), indexKeyLimit(i), ix.Name)
			}
		}
	}
	return nil
}

type indexPair struct {
	oldEntry, newEntry av.Item
	oldKey, newKey     []byte
}

// prepareIndexes computes, for prepare, pw's old and new entries in every
// index writes maintain (pw.indexes, pw.entries), with the capacity they
// consume; old and nw are the old and new items (nil: absent).
func prepareIndexes(r kv.Reader, pw *pendingWrite, old, nw av.Item) error {
	t := pw.change.Table
	pw.indexes = activeIndexes(t)
	pw.entries = make([]indexPair, len(pw.indexes))
	if n := len(t.GSIs); n > 0 {
		pw.use.shares = make([]gsiShare, 0, 2*n) // a delete and a put each, at most
	}
	for i, ix := range pw.indexes {
		p := &pw.entries[i]
		p.oldEntry, p.oldKey = indexEntry(t, ix, old)
		if p.oldEntry != nil {
			if ix.Backfilling {
				// The backfill may not have reached this item yet: only an
				// entry actually stored counts as the old one.
				if _, err := r.Get(p.oldKey); errors.Is(err, kv.ErrNotFound) {
					p.oldEntry, p.oldKey = nil, nil
				} else if err != nil {
					return internalError(err)
				}
			}
		}
		p.newEntry, p.newKey = indexEntry(t, ix, nw)
		del, put := indexWrites(p.oldEntry, p.newEntry, p.oldKey, p.newKey)
		pw.use.addIndex(ix, del+put)
		if !ix.Local {
			pw.use.addShare(ix, indexPartitionOf(ix, p.oldKey), p.oldKey, del)
			pw.use.addShare(ix, indexPartitionOf(ix, p.newKey), p.newKey, put)
		}
	}
	if len(t.Vectors) > 0 {
		return prepareVectors(r, pw, old, nw)
	}
	return nil
}

// indexDerivation stages a write's index entries, as prepareIndexes found
// them, and their stats deltas.
type indexDerivation struct{ perItem }

func (indexDerivation) wants(_ *Engine, t *tableMeta) bool { return len(t.GSIs) > 0 || len(t.LSIs) > 0 }

func (indexDerivation) oldImage() bool { return true }

func (indexDerivation) stage(wb *writeBatch, pw *pendingWrite) error {
	id := pw.change.Table.ID
	for i, ix := range pw.indexes {
		p := pw.entries[i]
		if p.oldEntry != nil && (p.newEntry == nil || string(p.oldKey) != string(p.newKey)) {
			if err := wb.b.Delete(p.oldKey); err != nil {
				return internalError(err)
			}
		}
		if p.newEntry != nil && (p.oldEntry == nil || string(p.oldKey) != string(p.newKey) || !av.EqualItems(p.oldEntry, p.newEntry)) {
			wb.buf = av.AppendItem(wb.buf[:0], p.newEntry)
			if err := wb.b.Set(p.newKey, wb.buf); err != nil {
				return internalError(err)
			}
		}
		wb.addDelta(id, pw.stripe, ix.ID, p.oldEntry != nil, p.newEntry != nil, av.ItemSize(p.oldEntry), av.ItemSize(p.newEntry))
	}
	return nil
}
