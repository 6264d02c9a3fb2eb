// Package devices is the hardware model under the resident-session engine: a
// Fabric of GPUs and NPUs with queue families (PM4, AQL, SDMA; XDNA),
// allocation profiles with per-family coherence, a memory budget, buffers of
// real mapped memory seen through the memory model of docs/memory-model.md,
// host-release publications, device programs written as step machines,
// dispatch with one outstanding invocation per device, completions, reset,
// quarantine, timing profiles, the fault plane and the event stream.
// Beside it are the parts a host or an author reads without the rest:
// devices/event (what happened: events, actors, the stream, the times of
// steps), devices/memory (raw memory, its kinds and the budget),
// devices/program (how a program is written), devices/fault (fault sites
// and chains), devices/failure (the error every layer returns, and its
// kinds), devices/timing (the timing profiles), devices/wait (the wait
// policies of real time), devices/backend (real hardware behind a GPU)
// and devices/choice (a checker's say in a simulated fabric's choices).
//
// Programs run under one of two executors chosen when the fabric is made:
// real time (one goroutine per device, wall-clock deadlines) or simulated
// time (one goroutine at a time, a virtual clock and seeded scheduling, so
// a seed replays byte for byte). Nothing here knows about sessions; the
// engine tags buffers and programs with an owner id that events carry.
//
// # Hardware backends
//
// A GPU may be real hardware behind the narrow backend.Accelerator
// interface (package devices/backend). A hardware package registers a
// backend.Backend under a name when it is imported (backend.Register, as a database/sql driver does; backends/cuda registers
// "cuda"), and NewFabricWith makes a fabric whose first GPU is the named
// backend's: the commands import the backends they ship, and a program that
// imports none links none. What a backend cannot do it says through
// optional interfaces asserted on its accelerator: backend.FaultSupport names the
// fault sites it cannot honour, which Fabric.CheckFault answers for the
// whole fabric.
//
// # Locks
//
// A goroutine that holds one of these locks takes only locks listed after
// it, never one before it:
//
//  1. Device.hw: a device's Reset and a dispatch that starts work outside
//     the fabric (a kernel's launch on an accelerator) take turns under it,
//     so that neither comes half-way through the other. It is held across
//     their hardware calls (an accelerator's teardown or launch: seconds at
//     worst), so it is taken before Fabric.mu and never under it, and only
//     by those two, never by readers.
//  2. Fabric.mu: the devices' invocations and holds, buffers' released and
//     quarantined flags, the quarantines, closed. Held only for state
//     changes: no accelerator call runs under it (Launch, Reset, Map,
//     Attach, Close, nor the giving back of released pinned memory, which
//     Release, Reset and settleQuarantines do after unlocking it).
//  3. event.Stream.gate: held by Buffer.Publish across its store and releases,
//     so that no device's events enter the stream before the publication's
//     (simExecutor.mu, fault.Plane.mu and Buffer.hostMu are taken under
//     it there); read-held by a real-time device's log, and by the host
//     collecting one, while it moves events in, just before event.Stream.mu.
//  4. simExecutor.mu: the simulated executor's clock, run queue and
//     generator; taken under Fabric.mu by dispatch and reset, and alone by
//     a simulated wait or advance, which steps programs under it. It is a
//     one-slot channel (internal/slot), not a sync.Mutex, so that a wait
//     whose context ends while another goroutine's run holds it gives up
//     at once, in a select against the context's Done channel. The real-
//     time executor has no lock, but its stop (under Fabric.mu) waits for the
//     device goroutine to finish the invocation, so a device goroutine takes
//     Fabric.mu only between invocations (settleQuarantines).
//  5. fault.Plane.mu: the fault chains; a leaf (hitFault emits the fault
//     event after it returns).
//  6. event.Stream.mu: the event ring, digest and subscribers. Subscribers run
//     under it (so their own locks, such as the oracle's, come after it and
//     they must not emit), and so does event.Stream.Atomically's function: the
//     budget's charge, refund and quarantine, and the unmapping of a
//     released buffer's host memory (pinned memory waits for unlocking).
//  7. memory.Budget.mu: a budget's figures; a leaf.
//  8. memory.Arena.mu: carving and giving back regions of host memory; a
//     leaf (the pool of empty chunks behind it is a sync.Pool, with no
//     process-wide lock).
//
// Buffer.hostMu (host stores against the non-coherent families' view of a
// buffer) and the backend registry's lock are leaves, taken with no other
// lock of this package held but event.Stream.gate. Locks of callers (the engine's
// session) come before all of these; an accelerator's own locks come after
// Device.hw and are never taken under Fabric.mu.
package devices
