package exchange

import (
	"testing"
	"time"

	"github.com/residentlua/residentlua/devices"
)

// retireAtOnce is a program that is no half of an exchange.
type retireAtOnce struct{}

func (retireAtOnce) Step(*devices.Env) devices.Next { return devices.Retire(nil) }

// Of finds the exchange from either of its prepared halves, and nothing
// from another program.
func TestOfFindsTheExchangeOfEitherHalf(t *testing.T) {
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, x, _, _, _ := dispatchedExchange(t, f, Default())
	if Of(x.GPU()) != x || Of(x.NPU()) != x {
		t.Errorf("Of(GPU half) = %p, Of(NPU half) = %p; want the exchange %p for both", Of(x.GPU()), Of(x.NPU()), x)
	}
	gpu := f.First(devices.GPU)
	fam, err := gpu.Family(devices.AQL)
	if err != nil {
		t.Fatal(err)
	}
	other, err := gpu.Prepare(fam, retireAtOnce{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := Of(other); got != nil {
		t.Errorf("Of(another program) = %p, want nil", got)
	}
}

// A DMA of many lines at a huge per-line figure saturates instead of
// wrapping into a short sleep.
func TestMulDurationSaturates(t *testing.T) {
	forever := time.Duration(1<<63 - 1)
	for _, tc := range []struct{ got, want time.Duration }{
		{mulDuration(time.Microsecond, 3), 3 * time.Microsecond},
		{mulDuration(time.Hour, 1<<40), forever},
		{mulDuration(forever, 0), 0},
	} {
		if tc.got != tc.want {
			t.Errorf("got %v, want %v", tc.got, tc.want)
		}
	}
}
