package txn

import (
	"testing"

	"github.com/extenddb/extenddb/emulator/api"
)

func TestCancelledMessage(t *testing.T) {
	cases := []struct {
		reasons []*api.CancellationReason
		want    string
	}{
		{[]*api.CancellationReason{nil}, "[None]"},
		{[]*api.CancellationReason{nil, {Code: ReasonConditionalCheckFailed}}, "[None, ConditionalCheckFailed]"},
		{[]*api.CancellationReason{{Code: ReasonTransactionConflict}, {Code: ReasonValidationError}, nil}, "[TransactionConflict, ValidationError, None]"},
	}
	for _, tc := range cases {
		e := Cancelled(tc.reasons)
		if e.Message != msgCancelledPrefix+tc.want[1:] || len(e.CancellationReasons) != len(tc.reasons) || e.CancellationReasons[len(tc.reasons)-1].Code == "" {
			t.Errorf("%v: %q %+v", tc.want, e.Message, e.CancellationReasons)
		}
	}
}
