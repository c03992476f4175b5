package wire

import (
	"net/http"

	"github.com/extenddb/extenddb/emulator"
	"github.com/rs/zerolog"
)

// Options configures the handler.
type Options struct {
	// DefaultAccount is the account of requests whose access key maps to
	// none; default "000000000000".
	DefaultAccount string
	// DefaultRegion is the Region of unsigned requests; default "us-east-1".
	DefaultRegion string
	// AccessKeyAccounts maps access key IDs to accounts.
	AccessKeyAccounts map[string]string
	// Logger defaults to a disabled logger.
	Logger *zerolog.Logger
}

// NewHandler returns the HTTP handler serving the DynamoDB, DynamoDB Streams
// and STS APIs over eng. (Placeholder until the wire layer lands.)
func NewHandler(eng *emulator.Engine, opts Options) http.Handler {
	return http.NotFoundHandler()
}
