// Package engine implements the resident-session protocol over the devices
// of a fabric: one startup cache line (WAIT, RUN, ABORT) polled by a GPU
// program and an NPU program, both admitted before RUN, one decision
// published, both joined under one deadline, and everything a device may
// still reach quarantined when teardown fails.
//
// The session is a state machine that does no I/O of its own; the devices
// package runs the programs. Every step is an event on the fabric's stream,
// and the Oracle checks the protocol's invariants on each one.
package engine
