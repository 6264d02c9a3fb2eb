// Package seeds is the seed policy every run of residentlua shares: the
// largest seed a run takes, the seed a run chooses when it is given none,
// and the seeds of the fabrics a run makes after its first. The Lua module,
// the command and campaigns read it, so that a seed one of them prints is
// one the others take.
package seeds

import "math/rand/v2"

// Max is the largest seed: 2^53-1, the largest integer a Lua number holds
// exactly, so that resident.seed() gives back the seed that was set.
const Max = 1<<53 - 1

// chosenLimit bounds the seeds Choose and Derive give: they are below
// 10^14, so that print shows them whole (Lua 5.1 prints numbers with 14
// significant digits) and a printed seed replays.
const chosenLimit = 100_000_000_000_000

// Choose picks a seed for a run that was given none.
func Choose() uint64 { return rand.Uint64N(chosenLimit-1) + 1 }

// Derive is the seed of the k-th fabric (from 1) that a run with seed run
// makes without a seed of its own: the run's seed for the first, and a mix
// of both for the others, so that --seed replays a whole run of many
// fabrics.
func Derive(run, k uint64) uint64 {
	if k <= 1 {
		return run
	}
	z := run + k*0x9e3779b97f4a7c15 // splitmix64
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return z%(chosenLimit-1) + 1
}
