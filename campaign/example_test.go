package campaign_test

import (
	"context"
	"fmt"
	"time"

	"github.com/residentlua/residentlua/campaign"
	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/fault"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/engine"
	"github.com/residentlua/residentlua/engine/oracle"
	"github.com/residentlua/residentlua/programs/exchange"
)

// sessionTrial is a trial written in Go: one session on a simulated fabric
// of the trial's seed with published latencies, whose GPU program hangs in
// every fourth trial,
// watched by the protocol's oracle. Its outcome is how the session closed;
// it records the rounds and, when the session retired, the fabric time
// from RUN to both retirements.
func sessionTrial(ctx context.Context, t *campaign.Trial) error {
	f, err := devices.NewFabric(devices.Config{Mode: devices.Simulated, Seed: t.Seed, Timing: timing.Published()})
	if err != nil {
		return err
	}
	defer f.Close()
	watch := oracle.New(f)
	defer watch.Stop()
	if t.Index%4 == 3 {
		if err := f.Faults().Set(fault.GPURun, "hang"); err != nil {
			return err
		}
	}
	cfg := exchange.Default()
	cfg.Rounds = 1 + int(t.Seed%8)
	s, err := engine.Open(f.First(devices.GPU), f.First(devices.NPU), exchange.Programs(cfg))
	if err != nil {
		return err
	}
	for _, step := range []func() error{s.SubmitGPU, s.SubmitNPU, s.Start} {
		if err := step(); err != nil {
			return err
		}
	}
	decided := f.Now()
	retired, err := s.WaitContext(ctx, time.Second)
	if err != nil {
		return err
	}
	if retired {
		if err := t.Record("run to retirement", (f.Now() - decided).Seconds()); err != nil {
			return err
		}
	}
	t.Outcome = s.Close().String()
	t.Violations = len(watch.Violations())
	return t.Record("rounds", float64(cfg.Rounds))
}

// A campaign of a trial written in Go, on four workers (the summary is the
// same for any number), then the replay of one seed alone.
func ExampleFunc() {
	cfg := campaign.Config{
		Trials:  40,
		Workers: 4,
		Seed:    1,
		Runners: campaign.Func("session", sessionTrial),
	}
	sum, err := campaign.Run(context.Background(), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(sum.Text())

	t, err := campaign.Replay(context.Background(), cfg, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("seed %d: %s\n%s\n", t.Seed, t.Outcome, t.Report)
	// Output:
	// campaign: 40 trials of session, seeds 1..40
	// trials by outcome:
	//       30  retired
	//       10  quarantined
	// oracle violations: 0
	// measurements (count: values recorded; min and max exact, the rest from an HDR histogram to 3 significant digits; times with their unit, whole numbers as counts):
	//   measurement        count   mean       min    p50    p90    p99  p99.9        max
	//   rounds                40    4.5         1      4      8      8      8          8
	//   run to retirement     30  146µs  76.819µs  136µs  227µs  311µs  311µs  311.398µs
	// failures: 0
	// seed 4: quarantined
	// measurements:
	//   rounds: 5
}

// The package's first example: a campaign of dice.
func Example() {
	sum, err := campaign.Run(context.Background(), campaign.Config{
		Trials:  1000,
		Workers: 8,
		Runners: campaign.Func("dice", func(ctx context.Context, t *campaign.Trial) error {
			roll := 1 + t.Seed%6
			if roll == 6 {
				t.Outcome = "six"
			}
			return t.Record("roll", float64(roll))
		}),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(sum.Text())
	// Output:
	// campaign: 1000 trials of dice, seeds 1..1000
	// trials by outcome:
	//      834  ok
	//      166  six
	// oracle violations: 0
	// measurements (count: values recorded; min and max exact, the rest from an HDR histogram to 3 significant digits; times with their unit, whole numbers as counts):
	//   measurement  count  mean  min  p50  p90  p99  p99.9  max
	//   roll          1000   3.5    1    3    6    6      6    6
	// failures: 0
}
