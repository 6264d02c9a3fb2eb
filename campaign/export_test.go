package campaign

// MaxPending is maxPending, for the external tests.
var MaxPending = maxPending
