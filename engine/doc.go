// Package engine implements the resident-session protocol over the devices
// of a fabric: one startup cache line (WAIT, RUN, ABORT) polled by a GPU
// program and an NPU program, both admitted before RUN, one decision
// published, both joined under one deadline, and everything a device may
// still reach quarantined when teardown fails.
//
// Open makes a Session of two programs, which a Programs function prepares
// on the session's startup line (package programs/exchange has the built-in
// exchange's). A Session drives the devices itself, synchronously: SubmitGPU and
// SubmitNPU dispatch a prepared program (on a real GPU, a kernel launch),
// Start and Abort publish the decision through the startup line's
// host-release publications, Wait and Close block on both programs'
// completions, and Close releases or quarantines the session's memory. The
// devices package runs the programs, in its simulated or real-time
// executor.
//
// A Session is safe for concurrent use. Its mutex serialises its
// operations and is held across the device calls they make, except a join:
// Wait (and Close, which joins too) lets go of it while joining, so State,
// Decision, IsComplete and Verification answer during a Wait, and a Close
// from another goroutine ends that Wait's join at once, by cancelling the
// context the Wait joins under, and joins for its own timeout. One join
// runs at a time: a Wait or a Close holds the session's join slot, a
// one-slot channel that a Wait waits for against its context's end.
//
// Every step is an event on the fabric's stream, whose vocabulary package
// engine/oracle defines, and its Oracle, a subscriber to that stream,
// checks the protocol's invariants on each event as it is emitted.
package engine
