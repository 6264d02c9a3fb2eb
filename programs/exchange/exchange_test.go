package exchange

import (
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/program"
)

// retireAtOnce is a program that is no half of an exchange.
type retireAtOnce struct{}

func (retireAtOnce) Step(program.Env) program.Next { return program.Retire(nil) }

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

// A slot's words sit where SlotLayout says: the generation word and the
// data, which the GPU writes, share their first line and end before the
// credit word's 128-byte pair, which the NPU alone writes; slots (and so
// the result area after them) start on a pair.
func TestSlotLayoutKeepsEachWriterOnItsOwnPairOfLines(t *testing.T) {
	for _, slotBytes := range []int{8, 56, 64, 120, 128, 4096, MaxSlotBytes} {
		l := Layout(slotBytes)
		pair := func(off int) int { return off / 128 }
		switch {
		case l.Stride%128 != 0:
			t.Errorf("%d-byte slots: stride %d is not whole pairs of lines", slotBytes, l.Stride)
		case l.Data%8 != 0 || l.Data/64 != 0:
			t.Errorf("%d-byte slots: data at %d, want 8-aligned on the generation word's line", slotBytes, l.Data)
		case pair(l.Data+slotBytes-1) >= pair(l.Credit) || pair(l.Credit) != pair(l.Stride-1):
			t.Errorf("%d-byte slots: data [%d, %d), credit at %d, stride %d: the credit's pair is shared", slotBytes, l.Data, l.Data+slotBytes, l.Credit, l.Stride)
		case l.Stride > l.Data+slotBytes+128+127:
			t.Errorf("%d-byte slots: stride %d wastes a pair", slotBytes, l.Stride)
		}
	}
}
