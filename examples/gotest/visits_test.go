package gotest_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/extenddb/extenddb/examples/gotest"
	"github.com/extenddb/extenddb/extenddbtest"
)

func TestVisit(t *testing.T) {
	// An in-memory ExtendDB with the table the template declares; it stops
	// when the test ends.
	srv := extenddbtest.Start(t, extenddbtest.WithLoad("template.yaml"))
	c := &gotest.Counter{DB: dynamodb.NewFromConfig(srv.Config), Table: "visits"}

	for want := 1; want <= 3; want++ {
		got, err := c.Visit(t.Context(), "/home")
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("visit %d: count %d", want, got)
		}
	}
	if got, err := c.Visit(t.Context(), "/about"); err != nil || got != 1 {
		t.Fatalf("another page: %d, %v", got, err)
	}
}
