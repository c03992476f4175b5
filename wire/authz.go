package wire

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/extenddb/extenddb/emulator"
	"github.com/extenddb/extenddb/emulator/api"
)

// engineAuthorized are the operations the engine authorizes itself, where
// it resolves their tables and knows the keys they touch (condition keys
// such as dynamodb:LeadingKeys). Every other operation is authorized here,
// before it runs, on the resource its request names.
var engineAuthorized = map[string]bool{
	"GetItem": true, "PutItem": true, "UpdateItem": true, "DeleteItem": true, "Query": true, "Scan": true,
	"BatchGetItem": true, "BatchWriteItem": true, "TransactGetItems": true, "TransactWriteItems": true,
	// PartiQL: each statement as dynamodb:PartiQLSelect/Insert/Update/Delete.
	"ExecuteStatement": true, "BatchExecuteStatement": true, "ExecuteTransaction": true,
}

// resourceNames are the members that name an operation's resource.
type resourceNames struct {
	TableName   *string `json:"TableName"`
	IndexName   *string `json:"IndexName"`
	ResourceArn *string `json:"ResourceArn"`
	StreamArn   *string `json:"StreamArn"`
	// BulkOperationArn of DescribeBulkOperation and CancelBulkOperation
	// is its table's ARN plus /bulk-operation/<id>.
	BulkOperationArn *string `json:"BulkOperationArn"`
	// ShardIterator of GetRecords starts with its stream's ARN.
	ShardIterator *string `json:"ShardIterator"`
	// ResourcePolicy of CreateTable, which then needs
	// dynamodb:PutResourcePolicy too.
	ResourcePolicy *string `json:"ResourcePolicy"`
	// ReplicaUpdates of UpdateTable: a Disassociate needs
	// dynamodb:DisassociateTableReplica on the table too.
	ReplicaUpdates []struct {
		Disassociate json.RawMessage `json:"Disassociate"`
	} `json:"ReplicaUpdates"`
}

// authorizeOp authorizes an operation the engine does not: its action is
// dynamodb:<Op>, its resource the table, index or stream its request names
// (account-wide operations name none). A body that does not decode is left
// for the operation to refuse.
func (h *handler) authorizeOp(ctx context.Context, ns api.Namespace, op string, body []byte) error {
	var rn resourceNames
	_ = json.Unmarshal(body, &rn)
	target := ""
	switch {
	case rn.TableName != nil:
		target = *rn.TableName
	case rn.ResourceArn != nil:
		target = *rn.ResourceArn
	case rn.StreamArn != nil:
		target = *rn.StreamArn
	case rn.BulkOperationArn != nil:
		// Authorized on its table; a malformed ARN is left for the
		// operation to refuse (it names no table of the caller).
		if tbl, _, ok := strings.Cut(*rn.BulkOperationArn, "/bulk-operation/"); ok && strings.HasPrefix(tbl, "arn:") {
			target = tbl
		} else {
			target = "arn:invalid"
		}
	case rn.ShardIterator != nil:
		if arn, _, ok := strings.Cut(*rn.ShardIterator, "|"); ok && strings.HasPrefix(arn, "arn:") {
			target = arn
		}
	}
	index := ""
	if rn.IndexName != nil {
		index = *rn.IndexName
	}
	if err := h.eng.Authorize(ctx, ns, "dynamodb:"+op, target, index); err != nil {
		return err
	}
	if op == "CreateTable" && rn.ResourcePolicy != nil {
		return h.eng.Authorize(ctx, ns, "dynamodb:PutResourcePolicy", target, "")
	}
	if op == "UpdateTable" {
		// API Reference, UpdateTable: disassociating the local replica
		// takes dynamodb:UpdateTable and dynamodb:DisassociateTableReplica
		// on it.
		for _, r := range rn.ReplicaUpdates {
			if len(r.Disassociate) > 0 && string(r.Disassociate) != "null" {
				return h.eng.Authorize(ctx, ns, "dynamodb:DisassociateTableReplica", target, "")
			}
		}
	}
	return nil
}

// callerOf is the engine's view of an authenticated identity.
func callerOf(id *Identity, r *http.Request) *emulator.Caller {
	c := id.caller()
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		c.SourceIP = host
	}
	return c
}

// now is the clock of signature dates (temporary credentials keep their
// own, Credentials.SetClock).
func (h *handler) now() time.Time { return time.Now() }

// refused logs and reports a DynamoDB request refused by authentication
// like any answered request, so a client's failing run can be matched to
// its cause.
func (h *handler) refused(target string, ns api.Namespace, body []byte, e *api.Error, requestID string, start time.Time) {
	if h.opts.OnRequest != nil {
		op, known := h.targetOp(target)
		h.requestDone(RequestDone{Operation: op, Status: http.StatusBadRequest, ErrorCode: e.Code}, known, start)
	}
	h.logRequest(requestLog{target: target, requestID: requestID, ns: ns, body: body, status: http.StatusBadRequest, err: e, start: start})
}

// targetOp is the operation an X-Amz-Target names, and whether it is a
// DynamoDB or Streams operation this server serves.
func (h *handler) targetOp(target string) (op string, known bool) {
	op = target[strings.LastIndexByte(target, '.')+1:]
	_, known = h.dynamo[op]
	if !known {
		_, known = h.streams[op]
	}
	return op, known
}

// stsAuthCodes are STS's names of the authentication failures.
var stsAuthCodes = map[string]string{
	CodeMissingAuthenticationToken: "MissingAuthenticationToken",
	CodeIncompleteSignature:        "IncompleteSignature",
	CodeInvalidSignature:           "SignatureDoesNotMatch",
	CodeUnrecognizedClient:         "InvalidClientTokenId",
	CodeExpiredToken:               "ExpiredToken",
}

// refuse answers a request that failed authentication, in the protocol it
// came in.
func (h *handler) refuse(w http.ResponseWriter, e *api.Error, stsJSON, stsQuery bool, target string, start time.Time) {
	requestID := newRequestID()
	switch {
	case stsQuery:
		requestID = newUUID()
		status := http.StatusForbidden
		if e.Code == CodeExpiredToken || e.Code == CodeIncompleteSignature {
			status = http.StatusBadRequest
		}
		w.Header().Set("x-amzn-RequestId", requestID)
		resp := stsErrorXML(stsAuthCodes[e.Code], e.Message, requestID)
		writeBody(w, status, "text/xml", resp)
	default:
		w.Header().Set("x-amzn-RequestId", requestID)
		status, resp, _ := encodeError(e)
		writeBody(w, status, contentTypeJSON10, resp)
	}
	if stsQuery || stsJSON {
		h.log.Debug().Str("action", "sts:?").Str("error", e.Code).Str("requestId", requestID).Dur("took", time.Since(start)).Msg("request refused")
	}
}
