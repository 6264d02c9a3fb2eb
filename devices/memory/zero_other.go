//go:build !amd64

package memory

// zeroEvicting zeroes b. Where the processor has no non-temporal store
// this package uses, the lines stay in this core's caches, as clear leaves
// them.
func zeroEvicting(b []byte) { clear(b) }
