package backups

import "testing"

func TestParseBackupARN(t *testing.T) {
	for _, tc := range []struct {
		arn, account, region, table, id string
		ok                              bool
	}{
		{"arn:aws:dynamodb:us-east-1:123456789012:table/Music/backup/01489173575360-b308cd7d", "123456789012", "us-east-1", "Music", "01489173575360-b308cd7d", true},
		{"arn:aws-cn:dynamodb:cn-north-1:123456789012:table/a.b-c/backup/x", "123456789012", "cn-north-1", "a.b-c", "x", true},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/Music", "", "", "", "", false},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/Music/stream/2024", "", "", "", "", false},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/Music/backup/", "", "", "", "", false},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/Music/backup/a/b", "", "", "", "", false},
		{"arn:aws:s3:us-east-1:123456789012:table/Music/backup/x", "", "", "", "", false},
		{"arn:aws:dynamodb::123456789012:table/Music/backup/x", "", "", "", "", false},
		{"arn:aws:dynamodb:cn-north-1:123456789012:table/a/backup/x", "", "", "", "", false},
		{"arn:aws:dynamodb:us-east-1:1\x00:table/a/backup/x", "", "", "", "", false},
		{"not an arn", "", "", "", "", false},
	} {
		ns, table, id, ok := ParseARN(tc.arn)
		if ok != tc.ok || ok && (ns.Account != tc.account || ns.Region != tc.region || table != tc.table || id != tc.id) {
			t.Errorf("ParseARN(%q) = %v %q %q %v", tc.arn, ns, table, id, ok)
		}
	}
}

// FuzzParseBackupARN: the parser never panics, and what it accepts is
// exactly the ARN a backup of that table and id would have.
func FuzzParseBackupARN(f *testing.F) {
	f.Add("arn:aws:dynamodb:us-east-1:123456789012:table/Music/backup/01489173575360-b308cd7d")
	f.Add("arn:aws:dynamodb:us-east-1:1:table//backup/x")
	f.Add("arn:::::table/a/backup/b")
	f.Fuzz(func(t *testing.T, s string) {
		ns, table, id, ok := ParseARN(s)
		if !ok {
			return
		}
		m := &Meta{Account: ns.Account, Region: ns.Region, ID: id, table: tableHead{Name: table}}
		if m.ARN() != s {
			t.Fatalf("%q parses to %v %q %q, whose ARN is %q", s, ns, table, id, m.ARN())
		}
	})
}
