package lua51

import "math"

// Lua 5.1's x ^ y is C's pow, and glibc's pow rounds its result correctly
// (to within a hair of half a unit in the last place). Go's math.Pow
// multiplies its way to integer powers and can be a unit off: 0.111...^3
// is 0.0013717421124828531 where glibc gives ...529, which 1 % that
// value turns into a difference %.14g shows. So the finite, normal cases
// are computed here in double-double arithmetic (about 104 bits) and
// rounded once: integer powers by exact products, the others as
// exp(y * log x).

// dd is a double-double number, hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

// twoSum is a + b exactly.
func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

// fastTwoSum is a + b exactly, for |a| >= |b|.
func fastTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

// twoProd is a * b exactly.
func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func (a dd) add(b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = fastTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return fastTwoSum(s.hi, s.lo)
}

func (a dd) mul(b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return fastTwoSum(p.hi, p.lo)
}

func (a dd) div(b dd) dd {
	q1 := a.hi / b.hi
	r := a.add(b.mul(dd{-q1, 0}))
	q2 := r.hi / b.hi
	r = r.add(b.mul(dd{-q2, 0}))
	q3 := r.hi / b.hi
	q := fastTwoSum(q1, q2)
	return q.add(dd{q3, 0})
}

// ln2dd is log(2) to 106 bits.
var ln2dd = dd{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56}

// logTerms are 1/(2k+1), the coefficients of 2 atanh(s)/(2s); expTerms
// are 1/k!, those of exp.
var logTerms, expTerms = func() (l [24]dd, e [28]dd) {
	for k := range l {
		l[k] = dd{1, 0}.div(dd{float64(2*k + 1), 0})
	}
	e[0] = dd{1, 0}
	for k := 1; k < len(e); k++ {
		e[k] = e[k-1].div(dd{float64(k), 0})
	}
	return l, e
}()

// ddLog is log(x) for a positive, finite x.
func ddLog(x float64) dd {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m, e = m*2, e-1
	}
	// log m = 2 atanh(s), s = (m-1)/(m+1), |s| < 0.172; m-1 is exact.
	s := dd{m - 1, 0}.div(twoSum(m, 1))
	s2 := s.mul(s)
	sum := logTerms[len(logTerms)-1]
	for k := len(logTerms) - 2; k >= 0; k-- {
		sum = sum.mul(s2).add(logTerms[k])
	}
	r := s.mul(sum)
	r = r.add(r)
	fe := float64(e)
	return twoProd(fe, ln2dd.hi).add(dd{fe * ln2dd.lo, 0}).add(r)
}

// ddExp is exp(t) as m * 2^k, for |t.hi| < 709.
func ddExp(t dd) (m dd, k int) {
	kf := math.Round(t.hi / ln2dd.hi)
	r := t.add(twoProd(-kf, ln2dd.hi)).add(dd{-kf * ln2dd.lo, 0})
	p := expTerms[len(expTerms)-1]
	for i := len(expTerms) - 2; i >= 0; i-- {
		p = p.mul(r).add(expTerms[i])
	}
	return p, int(kf)
}

// ddIntPow is x^n for an integer 0 < n, by squaring: exact while the
// result fits in 106 bits, as the products of small integer powers do.
func ddIntPow(x float64, n int) dd {
	r, b := dd{1, 0}, dd{x, 0}
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			r = r.mul(b)
		}
		if n > 1 {
			b = b.mul(b)
		}
	}
	return r
}

// luaPow is x^y as glibc's pow computes it: rounded correctly where the
// result is finite and normal; else Go's math.Pow, with the sign of a NaN
// as glibc gives it: for a NaN argument (pow(1, y) and pow(x, 0) aside,
// which are 1), that NaN, sign included, but nan when x is the NaN and y
// an odd integer; -nan for invalid arguments.
func luaPow(x, y float64) float64 {
	r := math.Pow(x, y)
	switch {
	case math.IsNaN(r):
		return powNaN(x, y)
	case r == 0 || math.IsInf(r, 0) || math.Abs(r) < 0x1p-1000 || math.Abs(r) > 0x1p1000:
		return r
	case x == 0 || math.IsInf(x, 0) || math.IsInf(y, 0) || y == 0 || x == 1:
		return r
	case y == 0.5:
		return math.Sqrt(x)
	}
	neg := false
	if x < 0 {
		// r is a number, so y is an integer.
		neg = math.Mod(y, 2) != 0
		x = -x
	}
	var v float64
	if n := math.Abs(y); n == math.Trunc(n) && n <= 64 {
		p := ddIntPow(x, int(n))
		if y < 0 {
			p = dd{1, 0}.div(p)
		}
		v = p.hi + p.lo
	} else {
		m, k := ddExp(ddLog(x).mul(dd{y, 0}))
		v = math.Ldexp(m.hi+m.lo, k)
	}
	if neg {
		v = -v
	}
	return v
}

// powNaN is the NaN glibc's pow gives for x^y.
func powNaN(x, y float64) float64 {
	switch {
	case math.IsNaN(x) && y == math.Trunc(y) && math.Abs(math.Mod(y, 2)) == 1:
		return nan(false)
	case math.IsNaN(x):
		return x
	case math.IsNaN(y):
		return y
	}
	return nan(true)
}
