package kinesis

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/extenddb/extenddb/emulator"
)

// Options configures a Sink.
type Options struct {
	// Endpoint is the Kinesis endpoint URL (http or https). Required.
	Endpoint string
	// AccessKeyID and SecretAccessKey sign the requests; empty takes
	// fixed local credentials, which local servers accept.
	AccessKeyID, SecretAccessKey string
	// HTTPClient sends the requests; nil takes a default *http.Client.
	HTTPClient aws.HTTPClient
}

// Sink sends records to one Kinesis endpoint, signing each request for the
// Region of the stream's ARN. Its client is our own, not the SDK's
// Kinesis package: that one costs every start of the binary (issue 36).
type Sink struct {
	url    string
	hc     aws.HTTPClient
	creds  aws.Credentials
	signer *v4.Signer
}

var _ emulator.KinesisSink = (*Sink)(nil)

// New returns a Sink for opts.Endpoint.
func New(opts Options) (*Sink, error) {
	u, err := url.Parse(opts.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("kinesis endpoint %q: want an http:// or https:// URL", opts.Endpoint)
	}
	if u.Path == "" {
		u.Path = "/"
	}
	if opts.AccessKeyID == "" {
		opts.AccessKeyID, opts.SecretAccessKey = "extenddb", "extenddb"
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	return &Sink{
		url:    u.String(),
		hc:     hc,
		creds:  aws.Credentials{AccessKeyID: opts.AccessKeyID, SecretAccessKey: opts.SecretAccessKey, Source: "extenddb"},
		signer: v4.NewSigner(),
	}, nil
}

// parseStreamARN returns the Region and stream name of
// arn:PARTITION:kinesis:REGION:ACCOUNT:stream/NAME.
func parseStreamARN(arn string) (region, name string, err error) {
	p := strings.SplitN(arn, ":", 6)
	if len(p) != 6 || p[2] != "kinesis" || !strings.HasPrefix(p[5], "stream/") {
		return "", "", fmt.Errorf("not a Kinesis stream ARN: %s", arn)
	}
	return p[3], p[5][len("stream/"):], nil
}

// StreamExists asks DescribeStreamSummary. The request names the stream
// (not its ARN), which every Kinesis server, old local ones included,
// understands.
func (s *Sink) StreamExists(ctx context.Context, streamARN string) (bool, error) {
	region, name, err := parseStreamARN(streamARN)
	if err != nil {
		return false, err
	}
	var out struct{}
	err = s.call(ctx, region, "DescribeStreamSummary", struct{ StreamName string }{name}, &out)
	var ae *apiError
	if errors.As(err, &ae) && ae.Code == "ResourceNotFoundException" {
		return false, nil
	}
	return err == nil, err
}

// PutRecords sends recs with one PutRecords request.
func (s *Sink) PutRecords(ctx context.Context, streamARN string, recs []emulator.KinesisRecord) ([]bool, error) {
	region, name, err := parseStreamARN(streamARN)
	if err != nil {
		return nil, err
	}
	type entry struct {
		Data         []byte // base64 in JSON, as Kinesis wants blobs
		PartitionKey string
	}
	in := struct {
		StreamName string
		Records    []entry
	}{name, make([]entry, len(recs))}
	for i, r := range recs {
		in.Records[i] = entry{r.Data, r.PartitionKey}
	}
	// A record Kinesis refused carries an ErrorCode; an accepted one none.
	var out struct{ Records []struct{ ErrorCode *string } }
	if err := s.call(ctx, region, "PutRecords", in, &out); err != nil {
		return nil, err
	}
	ok := make([]bool, len(recs))
	for i := range ok {
		ok[i] = i < len(out.Records) && out.Records[i].ErrorCode == nil
	}
	return ok, nil
}
