// Package trace reads, writes and validates traces: recorded runs of any
// implementation of the resident session (residentlua's own, or one in
// Rust, C or C++ on hardware residentlua cannot drive), one event a line in
// JSON, after a header line that says the format's version and which kinds
// of event the recorder can see (docs/traces.md, and the JSON Schema
// docs/trace.schema.json).
//
// Validate merges traces by time and feeds their events to the engine's
// oracle (oracle.Transcript), which checks every invariant whose events
// the headers declare; the others are reported as not checked. It streams:
// its memory is bounded by the sessions open at once.
package trace
