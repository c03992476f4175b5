package kinesis

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/extenddb/extenddb/emulator"
)

// Options configures a Sink.
type Options struct {
	// Endpoint is the Kinesis endpoint URL (http or https). Required.
	Endpoint string
	// AccessKeyID and SecretAccessKey sign the requests; empty takes
	// fixed local credentials, which local servers accept.
	AccessKeyID, SecretAccessKey string
	// HTTPClient defaults to the SDK's.
	HTTPClient aws.HTTPClient
}

// Sink sends records to one Kinesis endpoint, signing each request for the
// Region of the stream's ARN.
type Sink struct {
	opts    Options
	mu      sync.Mutex
	clients map[string]*kinesis.Client // by Region
}

var _ emulator.KinesisSink = (*Sink)(nil)

// New returns a Sink for opts.Endpoint.
func New(opts Options) (*Sink, error) {
	u, err := url.Parse(opts.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("kinesis endpoint %q: want an http:// or https:// URL", opts.Endpoint)
	}
	if opts.AccessKeyID == "" {
		opts.AccessKeyID, opts.SecretAccessKey = "extenddb", "extenddb"
	}
	return &Sink{opts: opts, clients: map[string]*kinesis.Client{}}, nil
}

func (s *Sink) client(region string) *kinesis.Client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.clients[region]; c != nil {
		return c
	}
	c := kinesis.New(kinesis.Options{
		Region:       region,
		BaseEndpoint: aws.String(s.opts.Endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(s.opts.AccessKeyID, s.opts.SecretAccessKey, ""),
		HTTPClient:   s.opts.HTTPClient,
		// The deliverer retries on its own, forever: the SDK's retries
		// would only delay the next attempt.
		RetryMaxAttempts: 1,
	})
	s.clients[region] = c
	return c
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
	_, err = s.client(region).DescribeStreamSummary(ctx, &kinesis.DescribeStreamSummaryInput{StreamName: aws.String(name)})
	var nf *types.ResourceNotFoundException
	if errors.As(err, &nf) {
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
	in := &kinesis.PutRecordsInput{StreamName: aws.String(name), Records: make([]types.PutRecordsRequestEntry, len(recs))}
	for i, r := range recs {
		in.Records[i] = types.PutRecordsRequestEntry{Data: r.Data, PartitionKey: aws.String(r.PartitionKey)}
	}
	out, err := s.client(region).PutRecords(ctx, in)
	if err != nil {
		return nil, err
	}
	ok := make([]bool, len(recs))
	for i := range ok {
		ok[i] = i < len(out.Records) && out.Records[i].ErrorCode == nil
	}
	return ok, nil
}
