// Package devices is the hardware model under the resident-session engine: a
// Fabric of GPUs and NPUs with queue families (PM4, AQL, SDMA; XDNA),
// allocation profiles with per-family coherence, a memory budget, buffers of
// real mapped memory seen through the memory model of docs/memory-model.md,
// host-release publications, device programs written as step machines,
// dispatch with one outstanding invocation per device, completions, reset,
// quarantine, timing profiles, the fault plane and the event stream.
//
// Programs run under one of two executors chosen when the fabric is made:
// real time (one goroutine per device, wall-clock deadlines) or simulated
// time (one goroutine at a time, a virtual clock and seeded scheduling, so
// a seed replays byte for byte). Nothing here knows about sessions; the
// engine tags buffers and programs with an owner id that events carry.
package devices
