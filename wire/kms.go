package wire

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator/api"
)

// KMS answers DescribeKey for the AWS-managed key alias/aws/dynamodb only:
// the Terraform provider's aws_dynamodb_table_replica reads it on every
// refresh (and fails if it cannot) to tell the default key from a
// customer's. Every other key is NotFoundException and every other KMS
// operation UnknownOperationException; ExtendDB holds no keys.

const (
	targetKMS         = "TrentService."
	contentTypeJSON11 = "application/x-amz-json-1.1"
	managedKeyAlias   = "alias/aws/dynamodb"
	// managedKeyCreated is a fixed creation time, so DescribeKey answers the
	// same every time (the key has no record of its own).
	managedKeyCreated = 1577836800 // 2020-01-01T00:00:00Z
)

// kmsKeyMetadata is DescribeKey's KeyMetadata for an AWS-managed key.
type kmsKeyMetadata struct {
	AWSAccountID          string   `json:"AWSAccountId"`
	KeyID                 string   `json:"KeyId"`
	Arn                   string   `json:"Arn"`
	CreationDate          float64  `json:"CreationDate"`
	Enabled               bool     `json:"Enabled"`
	Description           string   `json:"Description"`
	KeyUsage              string   `json:"KeyUsage"`
	KeyState              string   `json:"KeyState"`
	Origin                string   `json:"Origin"`
	KeyManager            string   `json:"KeyManager"`
	CustomerMasterKeySpec string   `json:"CustomerMasterKeySpec"`
	KeySpec               string   `json:"KeySpec"`
	EncryptionAlgorithms  []string `json:"EncryptionAlgorithms"`
	MultiRegion           bool     `json:"MultiRegion"`
}

// managedKeyMetadata describes ns's alias/aws/dynamodb key.
func managedKeyMetadata(ns api.Namespace) kmsKeyMetadata {
	arn := ns.ManagedKeyARN()
	return kmsKeyMetadata{
		AWSAccountID: ns.Account, KeyID: arn[strings.LastIndexByte(arn, '/')+1:], Arn: arn,
		CreationDate: managedKeyCreated, Enabled: true,
		Description: "Default key that protects my DynamoDB data when no other key is defined",
		KeyUsage:    "ENCRYPT_DECRYPT", KeyState: "Enabled", Origin: "AWS_KMS", KeyManager: "AWS",
		CustomerMasterKeySpec: "SYMMETRIC_DEFAULT", KeySpec: "SYMMETRIC_DEFAULT",
		EncryptionAlgorithms: []string{"SYMMETRIC_DEFAULT"},
	}
}

// kmsDescribeKey answers DescribeKey's body in ns: the status and response.
func kmsDescribeKey(ns api.Namespace, body []byte) (int, []byte) {
	var in struct{ KeyId *string } //nolint:revive // KMS's member name
	if err := json.Unmarshal(body, &in); err != nil {
		return kmsError(http.StatusBadRequest, "SerializationException", "")
	}
	if in.KeyId == nil || *in.KeyId == "" {
		return kmsError(http.StatusBadRequest, "ValidationException",
			"1 validation error detected: Value null at 'keyId' failed to satisfy constraint: Member must not be null")
	}
	md := managedKeyMetadata(ns)
	prefix := "arn:" + ns.Partition() + ":kms:" + ns.Region + ":" + ns.Account + ":"
	switch k := *in.KeyId; k {
	case managedKeyAlias, prefix + managedKeyAlias, md.KeyID, md.Arn:
		resp, _ := json.Marshal(map[string]any{"KeyMetadata": md})
		return http.StatusOK, resp
	default:
		if strings.HasPrefix(k, "alias/") {
			return kmsError(http.StatusBadRequest, "NotFoundException", "Alias "+prefix+k+" is not found.")
		}
		if !strings.HasPrefix(k, "arn:") {
			k = prefix + "key/" + k
		}
		return kmsError(http.StatusBadRequest, "NotFoundException", "Key '"+k+"' does not exist")
	}
}

func kmsError(status int, code, message string) (int, []byte) {
	e := map[string]string{"__type": code}
	if message != "" {
		e["message"] = message
	}
	resp, _ := json.Marshal(e)
	return status, resp
}

// serveKMS serves a KMS request (X-Amz-Target TrentService.<Action>).
func (h *handler) serveKMS(w http.ResponseWriter, ns api.Namespace, body []byte, action string, start time.Time) {
	requestID := newUUID()
	w.Header().Set("x-amzn-RequestId", requestID)
	var status int
	var resp []byte
	if action == "DescribeKey" {
		status, resp = kmsDescribeKey(ns, body)
	} else {
		status, resp = kmsError(http.StatusBadRequest, "UnknownOperationException", "")
	}
	writeBody(w, status, contentTypeJSON11, resp)
	h.log.Debug().Str("action", "kms:"+action).Str("account", ns.Account).Str("region", ns.Region).
		Int("status", status).Str("requestId", requestID).Dur("took", time.Since(start)).Msg("request")
}
