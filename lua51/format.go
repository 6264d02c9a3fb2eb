package lua51

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// string.format as Lua 5.1's str_format: each item is scanned as lstrlib.c's
// scanformat does (at most 5 flag characters, 2 width digits, 2 precision
// digits) and formatted as glibc's sprintf formats it in the C locale.
// gopher-lua hands the format to Go's fmt, whose verbs differ from C's
// (%g's default precision, %!f(string=...) for a numeric string,
// %!s(MISSING) for a missing argument, Go quoting for %q, NaN and +Inf).

// formatFlags are the flag characters of a conversion, FLAGS in lstrlib.c.
const formatFlags = "-+ #0"

// spec is one scanned conversion: %[flags][width][.precision]verb.
type spec struct {
	minus, plus, space, alt, zero bool
	width                         int
	prec                          int // -1 when absent
	verb                          byte
}

// strFormat is string.format(fmt, ...).
func strFormat(L *lua.LState) int {
	top := L.GetTop()
	f := checkString(L, 1)
	arg := 1
	var b []byte
	built := meter{growth: growth{L: L}}
	m := monitorOf(L)
	for i := 0; i < len(f); {
		built.built(len(b))
		if f[i] != '%' {
			n := strings.IndexByte(f[i:], '%')
			if n < 0 {
				n = len(f) - i
			}
			b = append(b, f[i:i+n]...)
			i += n
			continue
		}
		m.charge(L, 1)
		i++
		if i < len(f) && f[i] == '%' {
			b = append(b, '%')
			i++
			continue
		}
		arg++
		if arg > top {
			argError(L, arg, "no value")
		}
		var sp spec
		i = scanFormat(L, f, i, &sp)
		switch sp.verb {
		case 'q':
			s := checkString(L, arg)
			reserveProduct(L, len(s)+len(b), 2) // each byte quoted in at most two
			b = appendQuoted(b, s)
			continue
		case 's':
			s := checkString(L, arg)
			reserve(L, len(b)+len(s))
			if sp.prec < 0 && len(s) >= 100 {
				b = append(b, s...) // lstrlib.c keeps such a string whole
				continue
			}
			b = append(b, cString(formatString(sp, cString(s)))...)
		case 'c':
			c := byte(toInteger32(checkNumber(L, arg)))
			b = append(b, cString(pad(sp, string([]byte{c}), false))...)
		case 'd', 'i':
			b = append(b, formatSigned(sp, toInteger(checkNumber(L, arg)))...)
		case 'o', 'u', 'x', 'X':
			b = append(b, formatUnsigned(sp, toUnsigned(checkNumber(L, arg)))...)
		case 'e', 'E', 'f', 'g', 'G':
			b = append(b, formatFloat(sp, float64(checkNumber(L, arg)))...)
		default:
			luaError(L, "invalid option '%%%s' to 'format'", cString(string(sp.verb)))
		}
	}
	built.built(len(b))
	L.Push(lua.LString(b))
	return 1
}

// scanFormat reads the conversion that starts at f[i] (after the '%') into
// sp and returns the index after it. The verb is 0 at the end of f, as C
// reads the string's terminating NUL.
func scanFormat(L *lua.LState, f string, i int, sp *spec) int {
	at := func(j int) byte {
		if j < len(f) {
			return f[j]
		}
		return 0
	}
	start := i
	for at(i) != 0 && strings.IndexByte(formatFlags, at(i)) >= 0 {
		switch at(i) {
		case '-':
			sp.minus = true
		case '+':
			sp.plus = true
		case ' ':
			sp.space = true
		case '#':
			sp.alt = true
		case '0':
			sp.zero = true
		}
		i++
	}
	if i-start > len(formatFlags) {
		luaError(L, "invalid format (repeated flags)")
	}
	i, sp.width = scanDigits(f, i)
	sp.prec = -1
	if at(i) == '.' {
		i, sp.prec = scanDigits(f, i+1)
	}
	if isDigit(at(i)) {
		luaError(L, "invalid format (width or precision too long)")
	}
	sp.verb = at(i)
	return i + 1
}

// scanDigits reads at most two digits from f[i].
func scanDigits(f string, i int) (int, int) {
	n := 0
	for k := 0; k < 2 && i < len(f) && isDigit(f[i]); k++ {
		n = n*10 + int(f[i]-'0')
		i++
	}
	return i, n
}

// cString is s as C's string functions see it: up to its first NUL.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// toInteger32 converts as the C cast (int)d does on x86-64.
func toInteger32(f lua.LNumber) int {
	if !(f > -2147483649 && f < 2147483648) {
		return math.MinInt32
	}
	return int(f)
}

// toUnsigned converts as the C cast (unsigned long)d does on x86-64 with
// gcc: values from 2^63 on are converted after subtracting 2^63, and
// anything out of range gives the conversion instruction's 2^63.
func toUnsigned(f lua.LNumber) uint64 {
	if f >= 9223372036854775808 {
		return uint64(toInteger(f-9223372036854775808)) ^ (1 << 63)
	}
	return uint64(toInteger(f))
}

// padNumber pads s to sp.width, with spaces on the left, or the right for
// '-'; zeros go between the sign or prefix (the first signLen bytes) and the
// digits when zeros is set.
func padNumber(sp spec, s string, signLen int, zeros bool) string {
	if len(s) >= sp.width {
		return s
	}
	fill := sp.width - len(s)
	switch {
	case sp.minus:
		return s + strings.Repeat(" ", fill)
	case zeros:
		return s[:signLen] + strings.Repeat("0", fill) + s[signLen:]
	}
	return strings.Repeat(" ", fill) + s
}

// pad pads s to sp.width with spaces (zeros after the sign when zeros).
func pad(sp spec, s string, zeros bool) string { return padNumber(sp, s, 0, zeros) }

// formatString is %s of s: precision cuts, width pads with spaces.
func formatString(sp spec, s string) string {
	if sp.prec >= 0 && len(s) > sp.prec {
		s = s[:sp.prec]
	}
	return pad(sp, s, false)
}

// sign is the sign a conversion writes for a number.
func sign(sp spec, negative bool) string {
	switch {
	case negative:
		return "-"
	case sp.plus:
		return "+"
	case sp.space:
		return " "
	}
	return ""
}

// withPrecision applies an integer conversion's precision to its digits:
// at least prec digits, none for a zero of precision 0.
func withPrecision(sp spec, digits string) string {
	if sp.prec == 0 && digits == "0" {
		return ""
	}
	if len(digits) < sp.prec {
		return strings.Repeat("0", sp.prec-len(digits)) + digits
	}
	return digits
}

// formatSigned is %d and %i.
func formatSigned(sp spec, v int) string {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	s := sign(sp, neg)
	return padNumber(sp, s+withPrecision(sp, strconv.FormatUint(u, 10)), len(s), sp.zero && sp.prec < 0)
}

// formatUnsigned is %o, %u, %x and %X.
func formatUnsigned(sp spec, v uint64) string {
	var digits, prefix string
	switch sp.verb {
	case 'o':
		digits = withPrecision(sp, strconv.FormatUint(v, 8))
		if sp.alt && !strings.HasPrefix(digits, "0") {
			digits = "0" + digits
		}
	case 'u':
		digits = withPrecision(sp, strconv.FormatUint(v, 10))
	default:
		digits = withPrecision(sp, strconv.FormatUint(v, 16))
		if sp.alt && v != 0 {
			prefix = "0x"
		}
		if sp.verb == 'X' {
			digits, prefix = strings.ToUpper(digits), strings.ToUpper(prefix)
		}
	}
	return padNumber(sp, prefix+digits, len(prefix), sp.zero && sp.prec < 0)
}

// formatFloat is %e, %E, %f, %g and %G.
func formatFloat(sp spec, f float64) string {
	neg := math.Signbit(f)
	s := sign(sp, neg)
	upper := sp.verb == 'E' || sp.verb == 'G'
	if math.IsInf(f, 0) || math.IsNaN(f) {
		body := "inf"
		if math.IsNaN(f) {
			body = "nan"
		}
		if upper {
			body = strings.ToUpper(body)
		}
		return pad(sp, s+body, false)
	}
	prec := sp.prec
	if prec < 0 {
		prec = 6
	}
	var body string
	switch sp.verb {
	case 'f':
		body = strconv.FormatFloat(math.Abs(f), 'f', prec, 64)
		if sp.alt && prec == 0 {
			body += "."
		}
	case 'e', 'E':
		body = formatExp(math.Abs(f), prec, sp.alt)
	default:
		body = formatG(math.Abs(f), prec, sp.alt)
	}
	if upper {
		body = strings.ToUpper(body)
	}
	return padNumber(sp, s+body, len(s), sp.zero)
}

// formatExp is C's %e of a non-negative finite f: d.ddde±dd.
func formatExp(f float64, prec int, alt bool) string {
	body := strconv.FormatFloat(f, 'e', prec, 64)
	if alt && prec == 0 {
		i := strings.IndexByte(body, 'e')
		body = body[:i] + "." + body[i:]
	}
	return body
}

// formatG is C's %g of a non-negative finite f: %e when the exponent is
// below -4 or not below the precision, %f otherwise, without trailing
// zeros unless alt.
func formatG(f float64, prec int, alt bool) string {
	if prec == 0 {
		prec = 1
	}
	e := strconv.FormatFloat(f, 'e', prec-1, 64)
	x, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	var body string
	if x < -4 || x >= prec {
		body = formatExp(f, prec-1, alt)
	} else {
		body = strconv.FormatFloat(f, 'f', prec-1-x, 64)
		if alt && !strings.Contains(body, ".") {
			body += "."
		}
	}
	if alt {
		return body
	}
	mantissa, exp := body, ""
	if i := strings.IndexByte(body, 'e'); i >= 0 {
		mantissa, exp = body[:i], body[i:]
	}
	if strings.Contains(mantissa, ".") {
		mantissa = strings.TrimRight(strings.TrimRight(mantissa, "0"), ".")
	}
	return mantissa + exp
}

// appendQuoted is %q as Lua 5.1's addquoted: the string in double quotes
// with ", \ and newline escaped by a backslash, \r as \r and NUL as \000;
// other bytes as they are, which Lua reads back as the same string.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b = append(b, '\\', c)
		case '\r':
			b = append(b, `\r`...)
		case 0:
			b = append(b, `\000`...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
