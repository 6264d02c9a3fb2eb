//go:build !lua51norewrite

package lua51

// rewriteChunks is whether the loader rewrites chunks before compiling
// them (see rewrite.go); only a build for measuring what the rewrite
// costs (-tags lua51norewrite) turns it off.
const rewriteChunks = true
