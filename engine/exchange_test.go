package engine

// The built-in exchange run through the protocol and verified,
// over a matrix of shapes, in both executors.

import (
	"fmt"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/event"
	"github.com/residentlua/residentlua/devices/failure"
	"github.com/residentlua/residentlua/devices/program"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// TestExchangeVerifiesAcrossShapes runs the exchange for rounds 1, 7 and
// 1000, credits 1 and 4, slots of 8 and 4096 bytes, on PM4 and AQL, in the
// simulator and in real time, and requires that the host verifies every
// generation, that each generation was written and read exactly once, and
// that the oracle saw nothing wrong.
func TestExchangeVerifiesAcrossShapes(t *testing.T) {
	for _, mode := range bothModes {
		t.Run(mode.String(), func(t *testing.T) {
			i := 0
			for _, rounds := range []int{1, 7, 1000} {
				for _, credits := range []int{1, 4} {
					for _, slot := range []int{8, 4096} {
						for _, queue := range []devices.Command{devices.PM4, devices.AQL} {
							cfg := exchangeConfig(rounds, credits, slot, queue)
							npuFirst := i%2 == 1 // both submission orders
							i++
							name := fmt.Sprintf("rounds=%d/credits=%d/slot=%d/%s", rounds, credits, slot, queue)
							t.Run(name, func(t *testing.T) {
								runExchange(t, mode, cfg, npuFirst)
							})
						}
					}
				}
			}
		})
	}
}

func runExchange(t *testing.T, mode devices.Mode, cfg exchange.Config, npuFirst bool) {
	w := newWorld(t, mode, worldSeed)
	s := newSession(t, w.f, cfg)
	if x := exchangeOf(s); x == nil || x.Config() != cfg {
		t.Fatalf("session exchange config %+v, want %+v", x.Config(), cfg)
	}
	if fam := exchangeOf(s).GPU().Family(); fam.Command != cfg.GPUQueue {
		t.Errorf("GPU program on %s, want %s", fam.Command, cfg.GPUQueue)
	}
	if v, ok := verification(s); ok {
		t.Errorf("Verification before the run = %+v, true; want none", v)
	}
	submitBoth(t, s, npuFirst)
	if err := s.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	ok, err := waitWhileProgressing(s)
	if !ok || err != nil {
		logEvents(t, w.f, events(w.f, s.ID()))
		t.Fatalf("Wait = %v, %v after %v in which the payload did not change; want both retired", ok, err, longWait)
	}
	wantState(t, s, StateRetired)
	if done, err := s.IsComplete(); !done || err != nil {
		t.Errorf("IsComplete() = %v, %v after a successful Wait", done, err)
	}
	v, ok := verification(s)
	if !ok {
		t.Fatal("no verification after the session retired")
	}
	if !v.OK || v.Rounds != cfg.Rounds || v.Verified != cfg.Rounds || v.Problem != "" {
		t.Errorf("verification %+v, want OK with %d of %d generations verified", v, cfg.Rounds, cfg.Rounds)
	}
	id := s.ID()
	for _, k := range []program.EventKind{exchange.EvPayloadWrite, exchange.EvPayloadRead, exchange.EvCredit} {
		if n := w.counts.get(id, k); n != cfg.Rounds {
			t.Errorf("%d %s events, want %d (one per generation)", n, k, cfg.Rounds)
		}
	}
	if n := w.counts.get(id, program.EvObserve); n != 2 {
		t.Errorf("%d observe events, want 2 (each program sees RUN once)", n)
	}
	if n := w.counts.get(id, oracle.EvCheck); n != 1 {
		t.Errorf("%d check events, want 1 (the exchange's NPU half checks the pair)", n)
	}
	// Each generation was written and read once, in order.
	for _, k := range []program.EventKind{exchange.EvPayloadWrite, exchange.EvPayloadRead} {
		evs := actorEvents(w.f, id, k, nil)
		if len(evs) != cfg.Rounds { // the ring holds them all at these sizes
			t.Errorf("the stream holds %d %s events, want %d", len(evs), k, cfg.Rounds)
			continue
		}
		for g, e := range evs {
			if e.B != uint64(g+1) {
				t.Errorf("%s event %d is of generation %d, want %d", k, g, e.B, g+1)
				break
			}
		}
	}
	if out := s.CloseWithin(t.Context(), longWait); out != Retired {
		t.Errorf("Close = %v, want retired", out)
	}
	wantState(t, s, StateClosed)
	settle(t, w.f, w.o)
}

// TestExchangeShapesAreValidated checks the limits of an exchange: a bad
// shape is refused with an Invalid error, and the startup line made for it
// is released (settle: nothing stays charged).
func TestExchangeShapesAreValidated(t *testing.T) {
	w := newWorld(t, devices.Simulated, worldSeed)
	for _, cfg := range []exchange.Config{
		exchangeConfig(0, 1, 8, devices.AQL),
		exchangeConfig(exchange.MaxRounds+1, 1, 8, devices.AQL),
		exchangeConfig(1, 0, 8, devices.AQL),
		exchangeConfig(1, exchange.MaxCredits+1, 8, devices.AQL),
		exchangeConfig(1, 1, 4, devices.AQL),
		exchangeConfig(1, 1, 12, devices.AQL),
		exchangeConfig(1, 1, exchange.MaxSlotBytes+8, devices.AQL),
		exchangeConfig(1, 1, 8, devices.SDMA),
		exchangeConfig(1, 1, 8, devices.XDNA),
	} {
		if _, err := newExchangeSession(w.gpu, w.npu, cfg); err == nil {
			t.Errorf("newExchangeSession(%+v) succeeded", cfg)
		} else {
			wantErrMentions(t, fmt.Sprintf("newExchangeSession(%+v)", cfg), err, failure.Invalid)
		}
	}
	if n := len(w.f.Events().Events(func(e *event.Event) bool { return e.Kind == oracle.EvSubmit || e.Kind == event.EvDispatch })); n != 0 {
		t.Errorf("refused shapes dispatched %d times, want never", n)
	}
	settle(t, w.f, w.o)
}
