package av_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/extenddb/extenddb/emulator/av"
)

// roundTripFunc lets the test stand where the server would: it sees the bytes
// the real SDK sends and answers with bytes the codec produced.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func sdkClient(rt roundTripFunc) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:           "us-east-1",
		Credentials:      credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		BaseEndpoint:     aws.String("http://127.0.0.1:1"),
		HTTPClient:       &http.Client{Transport: rt},
		RetryMaxAttempts: 1,
	})
}

func allTypesSDK() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"s":    &types.AttributeValueMemberS{Value: "héllo \"q\" \n \u2028 😀"},
		"e":    &types.AttributeValueMemberS{Value: ""},
		"n":    &types.AttributeValueMemberN{Value: "-12.50"},
		"b":    &types.AttributeValueMemberB{Value: []byte{0, 1, 2, 0xff}},
		"ss":   &types.AttributeValueMemberSS{Value: []string{"a", "b"}},
		"ns":   &types.AttributeValueMemberNS{Value: []string{"1", "2.5"}},
		"bs":   &types.AttributeValueMemberBS{Value: [][]byte{{1}, {2, 3}}},
		"null": &types.AttributeValueMemberNULL{Value: true},
		"t":    &types.AttributeValueMemberBOOL{Value: true},
		"f":    &types.AttributeValueMemberBOOL{Value: false},
		"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberN{Value: "1"},
			&types.AttributeValueMemberL{Value: []types.AttributeValue{}},
		}},
		"m": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			"inner": &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}},
			"x":     &types.AttributeValueMemberS{Value: "y"},
		}},
	}
}

func allTypesAV() av.Item {
	return av.Item{
		"s":    {Type: av.TypeS, S: "héllo \"q\" \n \u2028 😀"},
		"e":    {Type: av.TypeS, S: ""},
		"n":    {Type: av.TypeN, S: "-12.50"},
		"b":    {Type: av.TypeB, S: "\x00\x01\x02\xff"},
		"ss":   {Type: av.TypeSS, Set: []string{"a", "b"}},
		"ns":   {Type: av.TypeNS, Set: []string{"1", "2.5"}},
		"bs":   {Type: av.TypeBS, Set: []string{"\x01", "\x02\x03"}},
		"null": {Type: av.TypeNULL, Bool: true},
		"t":    {Type: av.TypeBOOL, Bool: true},
		"f":    {Type: av.TypeBOOL},
		"l":    {Type: av.TypeL, L: []av.Value{{Type: av.TypeN, S: "1"}, {Type: av.TypeL, L: []av.Value{}}}},
		"m": {Type: av.TypeM, M: map[string]av.Value{
			"inner": {Type: av.TypeM, M: map[string]av.Value{}},
			"x":     {Type: av.TypeS, S: "y"},
		}},
	}
}

// What the SDK sends decodes to the values it meant.
func TestSDKRequestDecodes(t *testing.T) {
	var body []byte
	c := sdkClient(func(r *http.Request) (*http.Response, error) {
		body, _ = io.ReadAll(r.Body)
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
			Body: io.NopCloser(strings.NewReader("{}")), Request: r}, nil
	})
	if _, err := c.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String("t"), Item: allTypesSDK()}); err != nil {
		t.Fatal(err)
	}
	var req struct{ Item av.Item }
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	if err := av.ValidateItem(req.Item); err != nil {
		t.Fatal(err)
	}
	if !av.EqualItems(req.Item, allTypesAV()) || req.Item["n"].S != "-12.50" {
		t.Fatalf("SDK sent %s\ndecoded %s", body, av.AppendItemJSON(nil, req.Item))
	}
}

// What the codec encodes, the SDK reads back as the same values.
func TestSDKResponseDecodes(t *testing.T) {
	resp := append(append([]byte(`{"Item":`), av.AppendItemJSON(nil, allTypesAV())...), '}')
	c := sdkClient(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
			Body: io.NopCloser(bytes.NewReader(resp)), Request: r}, nil
	})
	out, err := c.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"),
		Key: map[string]types.AttributeValue{"s": &types.AttributeValueMemberS{Value: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := allTypesSDK()
	if len(out.Item) != len(want) {
		t.Fatalf("got %d attributes, want %d", len(out.Item), len(want))
	}
	for k, w := range want {
		if !sdkEqual(out.Item[k], w) {
			t.Errorf("attribute %s: got %#v, want %#v", k, out.Item[k], w)
		}
	}
}

func sdkEqual(a, b types.AttributeValue) bool {
	switch x := a.(type) {
	case *types.AttributeValueMemberS:
		y, ok := b.(*types.AttributeValueMemberS)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberN:
		y, ok := b.(*types.AttributeValueMemberN)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberB:
		y, ok := b.(*types.AttributeValueMemberB)
		return ok && bytes.Equal(x.Value, y.Value)
	case *types.AttributeValueMemberSS:
		y, ok := b.(*types.AttributeValueMemberSS)
		return ok && strings.Join(x.Value, "\x00") == strings.Join(y.Value, "\x00")
	case *types.AttributeValueMemberNS:
		y, ok := b.(*types.AttributeValueMemberNS)
		return ok && strings.Join(x.Value, "\x00") == strings.Join(y.Value, "\x00")
	case *types.AttributeValueMemberBS:
		y, ok := b.(*types.AttributeValueMemberBS)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for i := range x.Value {
			if !bytes.Equal(x.Value[i], y.Value[i]) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberNULL:
		y, ok := b.(*types.AttributeValueMemberNULL)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberBOOL:
		y, ok := b.(*types.AttributeValueMemberBOOL)
		return ok && x.Value == y.Value
	case *types.AttributeValueMemberL:
		y, ok := b.(*types.AttributeValueMemberL)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for i := range x.Value {
			if !sdkEqual(x.Value[i], y.Value[i]) {
				return false
			}
		}
		return true
	case *types.AttributeValueMemberM:
		y, ok := b.(*types.AttributeValueMemberM)
		if !ok || len(x.Value) != len(y.Value) {
			return false
		}
		for k, v := range x.Value {
			if !sdkEqual(v, y.Value[k]) {
				return false
			}
		}
		return true
	}
	return false
}
