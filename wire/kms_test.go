package wire

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
)

// TestKMSDescribeKey checks the one KMS answer ExtendDB gives: the
// AWS-managed key alias/aws/dynamodb of the caller's (account, Region), by
// alias, alias ARN, key ID or key ARN, with the ARN DescribeTable reports
// for default SSE; anything else is KMS's error.
func TestKMSDescribeKey(t *testing.T) {
	h := newTestHandler(t, Options{}).routes()
	auth := []string{"Authorization", "AWS4-HMAC-SHA256 Credential=111122223333/20260101/ap-northeast-1/kms/aws4_request, SignedHeaders=host, Signature=x"}
	ns := api.Namespace{Account: "111122223333", Region: "ap-northeast-1"}
	arn := ns.ManagedKeyARN()
	keyID := arn[strings.LastIndexByte(arn, '/')+1:]
	describe := func(keyID string) response {
		body, _ := json.Marshal(map[string]string{"KeyId": keyID})
		return do(h, http.MethodPost, "TrentService.DescribeKey", contentTypeJSON11, string(body), auth...)
	}
	for _, id := range []string{"alias/aws/dynamodb", "arn:aws:kms:ap-northeast-1:111122223333:alias/aws/dynamodb", keyID, arn} {
		r := describe(id)
		var out struct{ KeyMetadata kmsKeyMetadata }
		if err := json.Unmarshal([]byte(r.body), &out); err != nil || r.status != 200 || r.header.Get("Content-Type") != contentTypeJSON11 {
			t.Fatalf("DescribeKey(%s): %d %s %v", id, r.status, r.body, err)
		}
		md := out.KeyMetadata
		if md.Arn != arn || md.KeyID != keyID || md.AWSAccountID != ns.Account || md.KeyManager != "AWS" || md.KeyState != "Enabled" || !md.Enabled {
			t.Errorf("DescribeKey(%s): %+v, want the managed key %s", id, md, arn)
		}
	}
	for _, c := range []struct{ id, body string }{
		{"alias/mine", `{"__type":"NotFoundException","message":"Alias arn:aws:kms:ap-northeast-1:111122223333:alias/mine is not found."}`},
		{"1234abcd-12ab-34cd-56ef-1234567890ab", `{"__type":"NotFoundException","message":"Key 'arn:aws:kms:ap-northeast-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab' does not exist"}`},
	} {
		if r := describe(c.id); r.status != 400 || r.body != c.body {
			t.Errorf("DescribeKey(%s): %d %s, want %s", c.id, r.status, r.body, c.body)
		}
	}
	if r := do(h, http.MethodPost, "TrentService.DescribeKey", contentTypeJSON11, "{}", auth...); r.status != 400 || !strings.Contains(r.body, `"ValidationException"`) {
		t.Errorf("DescribeKey without KeyId: %d %s", r.status, r.body)
	}
	if r := do(h, http.MethodPost, "TrentService.Encrypt", contentTypeJSON11, "{}", auth...); r.status != 400 || r.body != `{"__type":"UnknownOperationException"}` {
		t.Errorf("Encrypt: %d %s", r.status, r.body)
	}
}
