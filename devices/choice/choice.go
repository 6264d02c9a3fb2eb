// Package choice is how a simulated fabric's nondeterminism is decided
// from outside it: each decision it would otherwise draw from its seed (which
// program steps next, whether a fault fires, when a release lands, whether a
// deadline passes first) is a Choice that a Chooser answers. The checker
// (package check) is one, exploring every answer.
package choice

import "strconv"

// Kind is what a nondeterministic decision of a simulated fabric is about.
type Kind uint8

// The decisions a simulated fabric asks its Chooser for. Alternative 0 is
// always what the seeded fabric's fixed decisions take, so a chooser that
// answers 0 to everything but the step order behaves as the seeded one.
const (
	// Step is which of the runnable programs steps next, or which pending
	// host release lands (Choice.Describe says which is which). The seeded
	// fabric draws it from the executor's generator.
	Step Kind = iota + 1
	// Fault is whether a fault term with a probability below 100% fires at
	// a hit: 0 it does not, 1 it does. The seeded fabric leaves it to the
	// fault plane's own generator, which draws as it always has.
	Fault
	// Landing is whether a host release for a non-coherent family lands at
	// once (0) or only after device steps that run meanwhile (1), as when
	// the device polls while the host's release is in flight. The seeded
	// fabric always lands it at once.
	Landing
	// Deadline is, during a wait whose deadline has come, whether the next
	// device step still runs (0) or the deadline passes first (1). The
	// seeded fabric always runs the step.
	Deadline
)

// Choice is one decision a simulated fabric asks its Chooser for: its
// kind, how many alternatives it has (N, at least 2), and what they are
// (Alternatives), which Describe puts in words. A Choice refers to the
// executor's state: it is valid only during the call to Choose.
type Choice struct {
	Kind         Kind
	N            int
	Alternatives Alternatives // the fabric's account of them
}

// Alternatives is the fabric's account of a choice's alternatives.
type Alternatives interface {
	// Describe puts alternative i in words.
	Describe(i int) string
	// Continuing is the alternative that lets the program that stepped
	// last step again, or -1.
	Continuing() int
}

// Chooser decides every nondeterministic choice of a simulated fabric
// (devices.Config.Chooser): Choose returns an alternative in [0, c.N). It
// is called on the goroutine that runs the fabric's steps or the host
// operation that made the choice, with locks of the fabric held, so it must
// not call the fabric back, except devices.Fabric.HashState when c.Kind is
// Step or Deadline.
type Chooser interface {
	Choose(c Choice) int
}

// Continuing is, for Step, the alternative that lets the program that
// stepped last step again, or -1 when it is not runnable (or the choice is
// of another kind). Any other alternative preempts it.
func (c Choice) Continuing() int {
	if c.Kind != Step || c.Alternatives == nil {
		return -1
	}
	return c.Alternatives.Continuing()
}

// Describe puts alternative i of the choice in words, such as "gpu0 steps
// before npu0" or "fault gpu.run fires (10%)".
func (c Choice) Describe(i int) string {
	if c.Alternatives == nil {
		return "alternative " + strconv.Itoa(i)
	}
	return c.Alternatives.Describe(i)
}
