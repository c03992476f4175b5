package throttle_test

import (
	"fmt"
	"time"

	"github.com/extenddb/extenddb/throttle"
)

// A 5-WCU table takes 1 KB writes until its one second of capacity is gone;
// a 4 KB write then drives it into debt, which refill repays.
func Example() {
	m, err := throttle.New(throttle.Config{})
	if err != nil {
		panic(err)
	}
	t0 := time.Date(2026, 10, 20, 12, 0, 0, 0, time.UTC)
	tbl, err := m.Register(t0, "111122223333", "us-east-1", "Orders", throttle.ProvisionedThroughput(5, 5))
	if err != nil {
		panic(err)
	}
	for i := 0; ; i++ {
		cause, ok := tbl.Admit(t0, throttle.Write, "customer#1")
		if !ok {
			fmt.Printf("write %d refused: %v\n", i, cause)
			break
		}
		tbl.Charge(t0, throttle.Write, "customer#1", 1)
	}
	later := t0.Add(200 * time.Millisecond)
	if _, ok := tbl.Admit(later, throttle.Write, "customer#1"); ok {
		tbl.Charge(later, throttle.Write, "customer#1", 4)
	}
	fmt.Printf("balance after a 4 KB write: %v\n", tbl.Balance(later, throttle.Write))
	fmt.Printf("balance 1 s later: %v\n", tbl.Balance(later.Add(time.Second), throttle.Write))
	// Output:
	// write 5 refused: table Write PROVISIONED
	// balance after a 4 KB write: -3
	// balance 1 s later: 2
}
