package emulator

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
	"github.com/extenddb/extenddb/emulator/internal/autoscale"
	"github.com/extenddb/extenddb/emulator/internal/backups"
	"github.com/extenddb/extenddb/emulator/internal/globaltables"
	"github.com/extenddb/extenddb/emulator/internal/insights"
	"github.com/extenddb/extenddb/emulator/internal/keyspace"
	"github.com/extenddb/extenddb/emulator/internal/kinesis"
	"github.com/extenddb/extenddb/emulator/internal/vectors"
)

// fullTableMeta is a tableMeta with every stored field set to a non-zero
// value. It assigns the fields one by one (no composite literal), so it
// reads the same however tableMeta groups them.
func fullTableMeta() *tableMeta {
	at := func(h int) time.Time { return time.Date(2026, 1, 2, h, 4, 5, 6000000, time.UTC) }
	s := func(v string) *string { return &v }
	id := keyspace.TableID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	t := &tableMeta{}
	t.Version = 1
	t.Account = "123456789012"
	t.Region = "eu-west-1"
	t.Name = "t"
	t.ID = id
	t.CreatedAt = at(1)
	t.KeySchema = []keyElem{{Name: "pk", KeyType: keyHash, Type: "S"}, {Name: "sk", KeyType: keyRange, Type: "N"}}
	t.AttrDefs = []attrDef{{Name: "pk", Type: "S"}, {Name: "sk", Type: "N"}}
	t.BillingMode = billingPayPerRequest
	t.LastPayPerRequest = at(2)
	t.EverPayPerRequest = true
	t.Throughput = ptState{Read: 1, Write: 2, LastIncrease: at(3), LastDecrease: at(4), DecreasesToday: 3, DecreaseDay: "2026-01-02"}
	t.OnDemand = odtCaps{Read: 4, Write: 5}
	t.Warm = warmState{Read: 6, Write: 7, Until: at(5)}
	t.GSIs = []*indexMeta{{Name: "g", ID: 1, KeySchema: []keyElem{{Name: "sk", KeyType: keyHash, Type: "N"}}, ProjectionType: "ALL",
		Insights: &insights.Setting{Enabled: true, Mode: "THROTTLED_KEYS", At: at(6)}}}
	t.LSIs = []*indexMeta{{Name: "l", ID: 2, Local: true, KeySchema: []keyElem{{Name: "pk", KeyType: keyHash, Type: "S"}}, ProjectionType: "INCLUDE", NonKeyAttrs: []string{"a"}}}
	t.NextIndexID = 3
	t.Vectors = []*vectorIndex{{Name: "v", ID: 3, Attr: "emb", Dims: 4, Distance: "COSINE", ProjectionType: "INCLUDE", NonKeyAttrs: []string{"a"},
		Schema: []vectors.SchemaElem{{Name: "sk", Type: "N", Kind: "HASH"}}, Creating: true, Backfilling: true}}
	t.StreamEnabled = true
	t.StreamViewType = "NEW_AND_OLD_IMAGES"
	t.StreamLabel = "2026-01-02T01:04:05.006"
	t.SSEEnabled = true
	t.SSEKMSKeyArn = "arn:aws:kms:eu-west-1:123456789012:key/k"
	t.TableClass = "STANDARD_INFREQUENT_ACCESS"
	t.TableClassSet = true
	t.TableClassUpdate = at(7)
	t.DeletionProtection = true
	t.ResourcePolicy = "{}"
	t.Policy = &resourcePolicy{Doc: "{\"Statement\":[]}", Revision: "1", Updated: at(8)}
	t.StreamPolicies = map[string]*resourcePolicy{"l": {Doc: "{}", Revision: "2", Updated: at(9)}}
	t.Tags = []api.Tag{{Key: s("k"), Value: s("v")}}
	t.TTLEnabled = true
	t.TTLAttr = "exp"
	t.Group = []*replicaMeta{{Region: "eu-west-1", ID: globaltables.TableID(id)}, {Region: "us-east-1", ID: globaltables.TableID{2}, KMSKey: "k", MaxRead: 9,
		GSIs: []globaltables.GSIOverride{{Name: "g", MaxRead: 8}}, Class: "STANDARD", ClassUpdated: at(10), Seeding: true, SeedFrom: "eu-west-1"}}
	t.Legacy = &globaltables.Legacy{CreatedAt: at(11), CreatingUntil: at(12), UpdatingUntil: at(13)}
	t.Kinesis = kinesis.Destinations{{StreamArn: "arn:aws:kinesis:eu-west-1:123456789012:stream/s", Status: "ACTIVE", Precision: "MICROSECOND"}}
	t.Scaling = &autoscale.Scaling{Read: &autoscale.Settings{Min: 1, Max: 10, Role: "r"}, Write: &autoscale.Settings{Min: 2, Max: 20}}
	t.PITREnabled = true
	t.PITRDays = 35
	t.PITREnabledAt = at(14)
	t.CreatingUntil = at(15)
	t.UpdatingUntil = at(16)
	t.UpdatingWhat = "the table"
	t.Deleting = true
	t.DeletingUntil = at(17)
	t.Restore = &backups.Restore{SourceBackupArn: "b", SourceTableArn: "s", RestoreDateTime: at(18), InProgress: true, SourceID: backups.TableID{3}}
	t.Importing = "arn:aws:dynamodb:eu-west-1:123456789012:table/t/import/i"
	t.Insights = &insights.Setting{Enabled: true, Mode: "ACCESSED_AND_THROTTLED_KEYS", At: at(19), Until: at(20)}
	return t
}

// tableMetaGolden is fullTableMeta's JSON as the original (ungrouped)
// tableMeta wrote it: the stored format data directories hold.
const tableMetaGolden = `{"v":1,"account":"123456789012","region":"eu-west-1","name":"t","id":"0102030405060708090a0b0c0d0e0f10",` +
	`"createdAt":"2026-01-02T01:04:05.006Z","keys":[{"n":"pk","k":"HASH","t":"S"},{"n":"sk","k":"RANGE",` +
	`"t":"N"}],"attrs":[{"n":"pk","t":"S"},{"n":"sk","t":"N"}],"billing":"PAY_PER_REQUEST","lastPPR":"2026-01-02T02:04:05.006Z",` +
	`"everPPR":true,"pt":{"r":1,"w":2,"li":"2026-01-02T03:04:05.006Z","ld":"2026-01-02T04:04:05.006Z",` +
	`"dt":3,"dd":"2026-01-02"},"odt":{"r":4,"w":5},"warm":{"r":6,"w":7,"u":"2026-01-02T05:04:05.006Z"},` +
	`"gsis":[{"name":"g","id":1,"keys":[{"n":"sk","k":"HASH","t":"N"}],"proj":"ALL","pt":{},"odt":{},` +
	`"warm":{"r":0,"w":0},"ci":{"on":true,"mode":"THROTTLED_KEYS","at":"2026-01-02T06:04:05.006Z"}}],` +
	`"lsis":[{"name":"l","id":2,"local":true,"keys":[{"n":"pk","k":"HASH","t":"S"}],"proj":"INCLUDE",` +
	`"nonKey":["a"],"pt":{},"odt":{},"warm":{"r":0,"w":0}}],"nextIndexID":3,` +
	`"vecs":[{"name":"v","id":3,"attr":"emb","dims":4,"dist":"COSINE","proj":"INCLUDE","nka":["a"],` +
	`"schema":[{"name":"sk","type":"N","kind":"HASH"}],"creating":true,"backfilling":true}],` +
	`"streamOn":true,"streamView":"NEW_AND_OLD_IMAGES",` +
	`"streamLabel":"2026-01-02T01:04:05.006","sse":true,"sseKey":"arn:aws:kms:eu-west-1:123456789012:key/k",` +
	`"class":"STANDARD_INFREQUENT_ACCESS","classSet":true,"classUpdate":"2026-01-02T07:04:05.006Z",` +
	`"dp":true,"policy":"{}","rpolicy":{"doc":"{\"Statement\":[]}","rev":"1","at":"2026-01-02T08:04:05.006Z"},` +
	`"streamPolicies":{"l":{"doc":"{}","rev":"2","at":"2026-01-02T09:04:05.006Z"}},"tags":[{"Key":"k",` +
	`"Value":"v"}],"ttl":true,"ttlAttr":"exp","group":[{"region":"eu-west-1","id":"0102030405060708090a0b0c0d0e0f10"},` +
	`{"region":"us-east-1","id":"02000000000000000000000000000000","kms":"k","maxRead":9,"gsis":[{"name":"g",` +
	`"maxRead":8}],"class":"STANDARD","classUpdated":"2026-01-02T10:04:05.006Z","seeding":true,` +
	`"seedFrom":"eu-west-1"}],"legacyGT":{"createdAt":"2026-01-02T11:04:05.006Z","creatingUntil":"2026-01-02T12:04:05.006Z",` +
	`"updatingUntil":"2026-01-02T13:04:05.006Z"},"kinesis":[{"arn":"arn:aws:kinesis:eu-west-1:123456789012:stream/s",` +
	`"status":"ACTIVE","precision":"MICROSECOND"}],"scaling":{"r":{"min":1,"max":10,"role":"r"},` +
	`"w":{"min":2,"max":20}},"pitr":true,"pitrDays":35,"pitrAt":"2026-01-02T14:04:05.006Z","creatingUntil":"2026-01-02T15:04:05.006Z",` +
	`"updatingUntil":"2026-01-02T16:04:05.006Z","updatingWhat":"the table","deleting":true,"deletingUntil":"2026-01-02T17:04:05.006Z",` +
	`"restore":{"backup":"b","sourceTable":"s","at":"2026-01-02T18:04:05.006Z","inProgress":true,` +
	`"sourceID":"03000000000000000000000000000000"},"importing":"arn:aws:dynamodb:eu-west-1:123456789012:table/t/import/i",` +
	`"ci":{"on":true,"mode":"ACCESSED_AND_THROTTLED_KEYS","at":"2026-01-02T19:04:05.006Z","until":"2026-01-02T20:04:05.006Z"}}`

// TestTableMetaJSONGolden: table metadata is stored as JSON, so however
// tableMeta's fields are grouped the bytes stay the same, and stored
// bytes load back to the same metadata.
func TestTableMetaJSONGolden(t *testing.T) {
	tm := fullTableMeta()
	for _, f := range reflect.VisibleFields(reflect.TypeOf(*tm)) {
		if f.IsExported() && !f.Anonymous && reflect.ValueOf(*tm).FieldByIndex(f.Index).IsZero() {
			t.Errorf("fullTableMeta leaves %s zero", f.Name)
		}
	}
	b, err := json.Marshal(tm)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != tableMetaGolden {
		t.Fatalf("tableMeta JSON changed:\n got %s\nwant %s", b, tableMetaGolden)
	}
	var back tableMeta
	if err := json.Unmarshal([]byte(tableMetaGolden), &back); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(&back); string(b) != tableMetaGolden {
		t.Fatalf("stored tableMeta does not load back:\n got %s\nwant %s", b, tableMetaGolden)
	}
}
