package s3io

import (
	"encoding/json"
	"testing"
	"time"
)

// TestRecordJSON pins the stored form of the export and import records:
// the members' names and order, which records left by earlier runs have.
func TestRecordJSON(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := jobRecord{Account: "123456789012", Region: "us-east-1", ID: "01767323045000-0000abcd", TableName: "t",
		TableID: tableID{1}, Status: "IN_PROGRESS", Start: at}
	ex, err := json.Marshal(&exportMeta{Version: 1, Owner: "p", jobRecord: r, ExportTime: at, Bucket: "b", Format: "ION", Type: "FULL_EXPORT"})
	if err != nil {
		t.Fatal(err)
	}
	const wantEx = `{"v":1,"proc":"p","account":"123456789012","region":"us-east-1","id":"01767323045000-0000abcd","table":"t",` +
		`"tableID":"01000000000000000000000000000000","status":"IN_PROGRESS","start":"2026-01-02T03:04:05Z",` +
		`"exportTime":"2026-01-02T03:04:05Z","bucket":"b","format":"ION","type":"FULL_EXPORT"}`
	if string(ex) != wantEx {
		t.Errorf("export record\n got %s\nwant %s", ex, wantEx)
	}
	r.End = at.Add(time.Second)
	im, err := json.Marshal(&importMeta{Version: 1, jobRecord: r, ClientToken: "tok", Format: "CSV", Compression: "NONE", Imported: 2})
	if err != nil {
		t.Fatal(err)
	}
	const wantIm = `{"v":1,"account":"123456789012","region":"us-east-1","id":"01767323045000-0000abcd","table":"t",` +
		`"tableID":"01000000000000000000000000000000","status":"IN_PROGRESS","start":"2026-01-02T03:04:05Z","end":"2026-01-02T03:04:06Z",` +
		`"token":"tok","source":{},"format":"CSV","compression":"NONE","params":null,"processed":0,"imported":2,` +
		`"errors":0,"processedBytes":0}`
	if string(im) != wantIm {
		t.Errorf("import record\n got %s\nwant %s", im, wantIm)
	}
}
