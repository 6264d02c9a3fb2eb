package lua51

// random is the generator behind C's rand() in glibc (random_r with
// TYPE_3, the default): an additive feedback generator over 31 words,
// r[i] = r[i-3] + r[i-31] mod 2^32, each output the sum shifted right by
// one. Lua 5.1's math.random calls rand() and math.randomseed calls
// srand(), so with this generator a seed gives the numbers lua5.1 gives on
// glibc. Each Lua state has its own.
type random struct {
	state [31]int32
	f, r  int // the front and rear indexes of random_r's fptr and rptr
}

// randMax is glibc's RAND_MAX.
const randMax = 2147483647

// newRandom makes a generator seeded as seed says: srand(seed) for seeds
// that fit in 32 bits, so that Options.Seed 42 gives what
// math.randomseed(42) gives; the halves of larger seeds are combined first.
// Seed 0 is srand(1), the sequence of a program that never calls srand.
func newRandom(seed int64) *random {
	g := &random{}
	g.seed(uint32(seed) ^ uint32(uint64(seed)>>32))
	return g
}

// seed is srandom_r: the state from seed by the minimal standard generator
// (16807 x mod 2^31-1, computed by Schrage's method), then 310 outputs
// discarded.
func (g *random) seed(seed uint32) {
	if seed == 0 {
		seed = 1
	}
	g.state[0] = int32(seed)
	word := int64(int32(seed)) // glibc's word is an int32_t
	for i := 1; i < len(g.state); i++ {
		hi, lo := word/127773, word%127773
		word = 16807*lo - 2836*hi
		if word < 0 {
			word += 2147483647
		}
		g.state[i] = int32(word)
	}
	g.f, g.r = 3, 0
	for i := 0; i < 10*len(g.state); i++ {
		g.next()
	}
}

// next is random_r: the next output, from 0 to randMax.
func (g *random) next() int32 {
	val := uint32(g.state[g.f]) + uint32(g.state[g.r])
	g.state[g.f] = int32(val)
	g.f, g.r = (g.f+1)%len(g.state), (g.r+1)%len(g.state)
	return int32(val >> 1)
}

// float is Lua 5.1's (rand() % RAND_MAX) / RAND_MAX: a number in [0, 1).
func (g *random) float() float64 {
	return float64(g.next()%randMax) / randMax
}
