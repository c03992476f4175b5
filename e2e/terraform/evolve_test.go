package terraform_test

import (
	"fmt"
	"strings"
	"testing"
)

// evolveStep is one configuration of the evolving table and what the SDK
// must see after applying it.
type evolveStep struct {
	name  string
	table string // the body of resource "aws_dynamodb_table" "t"
	check func(t *testing.T, ts tableState)
	// cyclesStream: the provider changes a stream's view type by disabling
	// and re-enabling it, which makes a new stream, but plans stream_label
	// as unchanged; outputs that use it catch up at the next apply (the
	// same on AWS). The plan after this step may change that output, and
	// nothing else.
	cyclesStream bool
}

// wantField fails when got differs from want.
func wantField(t *testing.T, step, field, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s: %s = %q, want %q", step, field, got, want)
	}
}

// The blocks most steps share.
const (
	evolveKeys = `
  hash_key  = "pk"
  range_key = "sk"

  attribute {
    name = "pk"
    type = "S"
  }
  attribute {
    name = "sk"
    type = "S"
  }
  attribute {
    name = "lsk"
    type = "N"
  }
  attribute {
    name = "g1pk"
    type = "S"
  }

  local_secondary_index {
    name               = "by_lsk"
    range_key          = "lsk"
    projection_type    = "INCLUDE"
    non_key_attributes = ["zeta", "alpha"]
  }
`
	// gsiOneChanged is gsi_one after step 3 changed its keys and
	// projection; %s is its capacity or on-demand block.
	gsiOneChanged = `
  global_secondary_index {
    name               = "gsi_one"
    hash_key           = "g1pk"
    range_key          = "sk"
    projection_type    = "INCLUDE"
    non_key_attributes = ["total"]
%s  }
`
	onDemand = `
  billing_mode = "PAY_PER_REQUEST"

  on_demand_throughput {
    max_read_request_units  = 100
    max_write_request_units = 50
  }
`
	gsiThree = `    read_capacity      = 3
    write_capacity     = 3
`
	gsiTwo = `    read_capacity      = 2
    write_capacity     = 2
`
	gsiOnDemand = `
    on_demand_throughput {
      max_read_request_units  = 20
      max_write_request_units = 10
    }
`
	// The provider sends attribute_name when it disables TTL, and
	// DynamoDB requires one.
	ttlOff = `
  ttl {
    attribute_name = "expires_at"
    enabled        = false
  }
`
	pitrOff = `
  point_in_time_recovery {
    enabled = false
  }
`
	tagsTest = `
  tags = {
    env  = "test"
    team = "data"
  }
`
	tagsProtected = `
  tags = {
    env       = "test"
    protected = "yes"
  }
`
)

func evolveSteps() []evolveStep {
	return []evolveStep{{
		name: "create: provisioned, GSI, LSI, TTL, stream, PITR, tags",
		table: `
  billing_mode   = "PROVISIONED"
  read_capacity  = 5
  write_capacity = 5
` + evolveKeys + `
  global_secondary_index {
    name            = "gsi_one"
    hash_key        = "g1pk"
    projection_type = "ALL"
    read_capacity   = 2
    write_capacity  = 2
  }

  ttl {
    attribute_name = "expires_at"
    enabled        = true
  }

  stream_enabled   = true
  stream_view_type = "NEW_IMAGE"

  point_in_time_recovery {
    enabled = true
  }

  tags = {
    env = "dev"
  }
`,
		check: func(t *testing.T, ts tableState) {
			const s = "create"
			wantField(t, s, "keys", ts.Keys, "pk HASH, sk RANGE")
			wantField(t, s, "attributes", ts.Attributes, "g1pk:S lsk:N pk:S sk:S")
			wantField(t, s, "billing", ts.Billing+" "+ts.Throughput, "PROVISIONED 5/5")
			wantField(t, s, "GSIs", strings.Join(ts.GSIs, "; "), "gsi_one [g1pk HASH] ALL 2/2 od=<none> ACTIVE")
			// LSI non-key attributes keep their order: the provider reads them as a list.
			wantField(t, s, "LSIs", strings.Join(ts.LSIs, "; "), "by_lsk [pk HASH, lsk RANGE] INCLUDE zeta,alpha")
			wantField(t, s, "stream", ts.Stream, "NEW_IMAGE")
			wantField(t, s, "TTL", ts.TTL, "ENABLED expires_at")
			wantField(t, s, "PITR", ts.PITR, "ENABLED")
			wantField(t, s, "tags", fmt.Sprint(ts.Tags), "map[env:dev]")
			wantField(t, s, "class", ts.Class, "STANDARD")
		},
	}, {
		name: "capacity up, GSI added and GSI capacity changed, stream view type, tags, table class",
		table: `
  billing_mode   = "PROVISIONED"
  read_capacity  = 10
  write_capacity = 8
  table_class    = "STANDARD_INFREQUENT_ACCESS"
` + evolveKeys + `
  attribute {
    name = "g2pk"
    type = "S"
  }

  global_secondary_index {
    name            = "gsi_one"
    hash_key        = "g1pk"
    projection_type = "ALL"
    read_capacity   = 3
    write_capacity  = 3
  }

  global_secondary_index {
    name            = "gsi_two"
    hash_key        = "g2pk"
    range_key       = "sk"
    projection_type = "KEYS_ONLY"
    read_capacity   = 1
    write_capacity  = 1
  }

  ttl {
    attribute_name = "expires_at"
    enabled        = true
  }

  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"

  point_in_time_recovery {
    enabled = true
  }
` + tagsTest,
		check: func(t *testing.T, ts tableState) {
			const s = "update 1"
			wantField(t, s, "billing", ts.Billing+" "+ts.Throughput, "PROVISIONED 10/8")
			wantField(t, s, "attributes", ts.Attributes, "g1pk:S g2pk:S lsk:N pk:S sk:S")
			wantField(t, s, "GSIs", strings.Join(ts.GSIs, "; "),
				"gsi_one [g1pk HASH] ALL 3/3 od=<none> ACTIVE; gsi_two [g2pk HASH, sk RANGE] KEYS_ONLY 1/1 od=<none> ACTIVE")
			wantField(t, s, "stream", ts.Stream, "NEW_AND_OLD_IMAGES")
			wantField(t, s, "tags", fmt.Sprint(ts.Tags), "map[env:test team:data]")
			wantField(t, s, "class", ts.Class, "STANDARD_INFREQUENT_ACCESS")
		},
		cyclesStream: true,
	}, {
		// The provider deletes and creates indexes in calls of their own, so
		// its combined UpdateTable carries DeletionProtectionEnabled alone, as
		// ExtendDB requires it.
		name: "GSI changed and removed, TTL off, PITR off, deletion protection on",
		table: `
  billing_mode                = "PROVISIONED"
  read_capacity               = 10
  write_capacity              = 8
  table_class                 = "STANDARD_INFREQUENT_ACCESS"
  deletion_protection_enabled = true
` + evolveKeys + fmt.Sprintf(gsiOneChanged, gsiThree) + ttlOff + `
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
` + pitrOff + tagsTest,
		check: func(t *testing.T, ts tableState) {
			const s = "update 2"
			wantField(t, s, "attributes", ts.Attributes, "g1pk:S lsk:N pk:S sk:S")
			wantField(t, s, "GSIs", strings.Join(ts.GSIs, "; "), "gsi_one [g1pk HASH, sk RANGE] INCLUDE total 3/3 od=<none> ACTIVE")
			wantField(t, s, "TTL", ts.TTL, "DISABLED")
			wantField(t, s, "PITR", ts.PITR, "DISABLED")
			wantField(t, s, "deletion protection", fmt.Sprint(ts.DeletionProtection), "true")
		},
	}, {
		name: "deletion protection off, tags",
		table: `
  billing_mode                = "PROVISIONED"
  read_capacity               = 10
  write_capacity              = 8
  table_class                 = "STANDARD_INFREQUENT_ACCESS"
  deletion_protection_enabled = false
` + evolveKeys + fmt.Sprintf(gsiOneChanged, gsiThree) + ttlOff + `
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
` + pitrOff + tagsProtected,
		check: func(t *testing.T, ts tableState) {
			wantField(t, "unprotect", "deletion protection", fmt.Sprint(ts.DeletionProtection), "false")
			wantField(t, "unprotect", "tags", fmt.Sprint(ts.Tags), "map[env:test protected:yes]")
		},
	}, {
		name: "on-demand with caps",
		table: `
  table_class = "STANDARD_INFREQUENT_ACCESS"
` + onDemand + evolveKeys + fmt.Sprintf(gsiOneChanged, gsiOnDemand) + ttlOff + `
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
` + pitrOff + tagsProtected,
		check: func(t *testing.T, ts tableState) {
			const s = "to on-demand"
			// On-demand tables report 0/0 throughput (the provider's plan-time
			// check refuses anything else).
			wantField(t, s, "billing", ts.Billing+" "+ts.Throughput+" od="+ts.OnDemand, "PAY_PER_REQUEST 0/0 od=100/50")
			wantField(t, s, "GSIs", strings.Join(ts.GSIs, "; "), "gsi_one [g1pk HASH, sk RANGE] INCLUDE total 0/0 od=20/10 ACTIVE")
		},
	}, {
		name: "back to provisioned",
		table: `
  billing_mode   = "PROVISIONED"
  read_capacity  = 4
  write_capacity = 4
  table_class    = "STANDARD_INFREQUENT_ACCESS"
` + evolveKeys + fmt.Sprintf(gsiOneChanged, gsiTwo) + ttlOff + `
  stream_enabled   = true
  stream_view_type = "NEW_AND_OLD_IMAGES"
` + pitrOff + tagsProtected,
		check: func(t *testing.T, ts tableState) {
			const s = "to provisioned"
			wantField(t, s, "billing", ts.Billing+" "+ts.Throughput+" od="+ts.OnDemand, "PROVISIONED 4/4 od=<none>")
			wantField(t, s, "GSIs", strings.Join(ts.GSIs, "; "), "gsi_one [g1pk HASH, sk RANGE] INCLUDE total 2/2 od=<none> ACTIVE")
		},
	}, {
		// DynamoDB takes no stream change in the UpdateTable that changes
		// capacity: the stream goes off in an apply of its own.
		name: "stream off",
		table: `
  billing_mode   = "PROVISIONED"
  read_capacity  = 4
  write_capacity = 4
  table_class    = "STANDARD_INFREQUENT_ACCESS"
` + evolveKeys + fmt.Sprintf(gsiOneChanged, gsiTwo) + ttlOff + `
  stream_enabled = false
` + pitrOff + tagsProtected,
		check: func(t *testing.T, ts tableState) {
			wantField(t, "stream off", "stream", ts.Stream, "off")
		},
	}}
}

// TestEvolvingTable walks one table through the changes users make over
// its life, seven applies, with a clean plan and SDK checks after every
// step; a destroy refused by deletion protection; the outputs' ARN and
// stream label; and the final destroy. Transitions take
// defaultTransitionDelay, so every waiter of the provider polls.
func TestEvolvingTable(t *testing.T) {
	tl := findTools(t)
	t.Parallel()
	acct := account{"333333333333", "AKIAEVOLVE000000"}
	const region = "ap-southeast-2"
	s := newScenario(t, tl, scenarioOptions{accounts: []account{acct}, transitionDelay: defaultTransitionDelay})
	c := s.client(region, acct)
	labels := map[string]bool{}
	for i, st := range evolveSteps() {
		s.write("main.tf", s.terraformBlock()+s.providerBlock("", region, acct)+`
resource "aws_dynamodb_table" "t" {
  name = "evolving"
`+st.table+`}

output "arn" {
  value = aws_dynamodb_table.t.arn
}

output "stream_label" {
  value = aws_dynamodb_table.t.stream_label
}
`)
		if i == 0 {
			s.init()
		}
		step := fmt.Sprintf("step %d: %s", i+1, st.name)
		if !st.cyclesStream {
			s.applyClean(step)
		} else {
			s.apply(step)
			out, _ := s.tf(step+": plan changes only the stream_label output", []int{0, 2}, "plan", "-detailed-exitcode", "-input=false")
			if strings.Contains(out, "Plan:") || strings.Count(out, " = ") > 1 {
				t.Fatalf("%s: the plan changes more than the stream_label output:\n%s", step, out)
			}
		}
		ts := describe(t, c, "evolving")
		wantField(t, step, "ARN", ts.ARN, "arn:aws:dynamodb:ap-southeast-2:333333333333:table/evolving")
		st.check(t, ts)
		outs := s.outputs()
		wantField(t, step, "output arn", fmt.Sprint(outs["arn"]), ts.ARN)
		if label := stateAttr(t, s, "aws_dynamodb_table", "t", "stream_label"); ts.Stream != "off" && label != ts.StreamLabel {
			t.Errorf("%s: stream_label in state %q, LatestStreamLabel %q", step, label, ts.StreamLabel)
		}
		if ts.Stream != "off" {
			labels[ts.StreamLabel] = true
		}
		if t.Failed() {
			t.FailNow()
		}
		if ts.DeletionProtection {
			out, _ := s.tf(step+": destroy refused by deletion protection", []int{1}, "destroy", "-auto-approve", "-input=false")
			if !strings.Contains(out, "Resource cannot be deleted as it is currently protected against deletion") {
				t.Fatalf("destroy with deletion protection: want DynamoDB's ValidationException, got:\n%s", out)
			}
			if tableGone(t, c, "evolving") {
				t.Fatal("the protected table was deleted")
			}
		}
	}
	// Two stream lives (NEW_IMAGE, then its view-type cycle): each new
	// stream has a new label, and state held each (checked above).
	if len(labels) != 2 {
		t.Errorf("stream labels seen: %v, want 2 distinct", labels)
	}
	s.destroy("destroy")
	if !tableGone(t, c, "evolving") {
		t.Error("table still there after destroy")
	}
}

// TestWarmThroughput is listed so the scenario is not forgotten: the
// installed provider (5.100) has no warm_throughput argument; it comes with
// the v6 line.
func TestWarmThroughput(t *testing.T) {
	findTools(t)
	t.Skip("pending: the hashicorp/aws 5.100 provider has no warm_throughput argument (provider v6); the engine's WarmThroughput is covered by emulator tests")
}
