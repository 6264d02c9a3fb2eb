//go:build lua51norewrite

package lua51

// rewriteChunks is off in this build, made only to measure what the
// rewrite costs (lua51/rewritecost.sh): chunks are compiled by gopher-lua
// as they are, with every miscompilation the rewrite fixes.
const rewriteChunks = false
