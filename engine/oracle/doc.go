// Package oracle checks the resident-session protocol's invariants on the
// event stream a session writes: the Oracle watches a fabric's events as
// they are emitted, and a Transcript checks events fed to it one at a time,
// such as a recorded run of another implementation. Its only input is the
// events, whose vocabulary (the protocol's event kinds, participants, join
// results and startup decisions) it defines for the session to write.
package oracle
