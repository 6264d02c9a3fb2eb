package fault

import "testing"

// A chain is parsed into one allocation: a campaign's trials each arm a few.
func TestParseAllocatesOnlyTheChain(t *testing.T) {
	var chain Chain
	n := testing.AllocsPerRun(100, func() {
		var err error
		if chain, err = Parse(GPURun, "2*off->30%1*crash(trial)->hang"); err != nil {
			t.Fatal(err)
		}
	})
	if n != 1 {
		t.Errorf("Parse allocates %v times, want 1 (the chain)", n)
	}
	if len(chain) != 3 || cap(chain) != 3 {
		t.Errorf("Parse made a chain of length %d and capacity %d, want 3 and 3", len(chain), cap(chain))
	}
}
