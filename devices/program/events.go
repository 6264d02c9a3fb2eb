package program

// EventKind names what happened. The runtime emits its own kinds (dispatch,
// start, retire, ...); the engine and programs add theirs. Each kind is
// defined once, with its category, by DefineEvent.
type EventKind string

// EventCategory groups event kinds for whoever reads a timeline (a trace
// viewer's categories, the oracle's protocol steps).
type EventCategory uint8

// The categories.
const (
	CategoryProtocol EventCategory = iota // the host's steps of a protocol (the engine's)
	CategoryHost                          // the host's stores and publications to devices
	CategoryDevice                        // a device program's life: dispatch, start, observe, retire, reset
	CategoryRound                         // the traffic of a running program on its buffers (besides the startup line)
	CategoryMemory                        // allocations, releases and quarantines
	CategoryFault                         // a fault that fired
)

var categoryNames = [...]string{"protocol", "host", "device", "round", "memory", "fault"}

// String is the category's name, as a trace shows it.
func (c EventCategory) String() string { return categoryNames[c] }

// eventCategories holds every kind's category; written only while packages
// initialise (DefineEvent), read-only afterwards.
var eventCategories = map[EventKind]EventCategory{}

// DefineEvent defines the event kind name with its category. A package
// defines each of its kinds once, in a package-level var; defining a name
// twice is a programming error and panics when the program starts.
func DefineEvent(name string, c EventCategory) EventKind {
	k := EventKind(name)
	if _, dup := eventCategories[k]; dup {
		panic("program: event kind " + name + " defined twice")
	}
	eventCategories[k] = c
	return k
}

// LookupEvent returns the kind defined with name, and whether there is one.
func LookupEvent(name string) (EventKind, bool) {
	_, ok := eventCategories[EventKind(name)]
	return EventKind(name), ok
}

// Category is the category k was defined with (protocol for a kind never
// defined).
func (k EventKind) Category() EventCategory { return eventCategories[k] }

// Kinds that any program emits.
var (
	// EvObserve: the program acted on the decision it read from the
	// startup word (B: the decision). After it observed ABORT, a program
	// emits no event of CategoryRound: it touches nothing but the startup
	// line (the protocol's invariant).
	EvObserve = DefineEvent("observe", CategoryDevice)
	// EvNote: a program's own note, B and Detail as the program says
	// (programs written in Lua emit their own event names as notes, the
	// name first in Detail).
	EvNote = DefineEvent("note", CategoryDevice)
)
