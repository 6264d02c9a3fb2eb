package luaapi

import "math/rand/v2"

// MaxSeed is the largest seed: 2^53-1, the largest integer a Lua number
// holds exactly, so that resident.seed() gives back the seed that was set.
const MaxSeed = 1<<53 - 1

// ChosenSeedLimit bounds the seeds the module chooses or derives: they are
// below 10^14, so that print shows them whole (Lua 5.1 prints numbers with
// 14 significant digits) and a printed seed replays.
const ChosenSeedLimit = 100_000_000_000_000

// ChooseSeed picks a seed for a run that was given none.
func ChooseSeed() uint64 { return rand.Uint64N(ChosenSeedLimit-1) + 1 }

// DeriveSeed is the seed of the k-th fabric (from 1) that a run with seed
// run makes without a seed of its own: the run's seed for the first, and a
// mix of both for the others, so that --seed replays a whole run of many
// fabrics.
func DeriveSeed(run, k uint64) uint64 {
	if k <= 1 {
		return run
	}
	z := run + k*0x9e3779b97f4a7c15 // splitmix64
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return z%(ChosenSeedLimit-1) + 1
}
