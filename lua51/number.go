package lua51

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// NumberToString formats n as Lua 5.1 does (LUA_NUMBER_FMT "%.14g"): 0.3
// for 0.1+0.2, 1e+16, inf, -inf and nan (-nan for a NaN whose sign bit is
// set, as glibc's printf writes it).
func NumberToString(n lua.LNumber) string {
	f := float64(n)
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	case f == math.Trunc(f) && math.Abs(f) < 1e14 && !(f == 0 && math.Signbit(f)):
		return strconv.FormatInt(int64(f), 10) // the common case, without 'g' formatting
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// ParseNumber converts s to a number as Lua 5.1 does for tonumber(s) and for
// a string in arithmetic (luaO_str2d): C's strtod, so surrounding white space
// (\r included), exponents, hexadecimal ("0x1A", "0x1p4"), "inf" and "nan"
// are accepted, and nothing else may follow. Like C, it reads s up to its
// first NUL byte.
func ParseNumber(s string) (lua.LNumber, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	t = strings.TrimRight(t, " \t\n\v\f\r")
	if t == "" {
		return 0, false
	}
	neg := false
	body := t
	if body[0] == '+' || body[0] == '-' {
		neg = body[0] == '-'
		body = body[1:]
	}
	var f float64
	var ok bool
	switch lower := strings.ToLower(body); {
	case lower == "inf" || lower == "infinity":
		f, ok = math.Inf(1), true
	case lower == "nan" || strings.HasPrefix(lower, "nan(") && strings.HasSuffix(lower, ")") && isNanTag(lower[4:len(lower)-1]):
		f, ok = math.NaN(), true
	case strings.HasPrefix(lower, "0x"):
		f, ok = parseHex(lower[2:])
	default:
		f, ok = parseDecimal(body)
	}
	if !ok {
		return 0, false
	}
	if neg {
		f = -f
	}
	return lua.LNumber(f), true
}

// isNanTag reports whether s may stand between the parentheses of "nan(...)".
func isNanTag(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// parseDecimal reads digits [. digits] [e [sign] digits] with at least one
// digit in the mantissa, as strtod does.
func parseDecimal(s string) (float64, bool) {
	i, digits := scanMantissa(s, isDigit)
	if digits == 0 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i = scanExponent(s, i)
	}
	if i != len(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeError(err) {
		return 0, false
	}
	return f, true
}

// scanMantissa scans digits [. digits] at the start of s, digits as isDigit
// tells them, and returns where it stopped and how many digits it read.
func scanMantissa(s string, isDigit func(byte) bool) (end, digits int) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i, digits = i+1, digits+1
		}
	}
	return i, digits
}

// scanExponent reads an exponent whose letter is s[i]: [sign] digits after
// it. It returns where the exponent ends, or i when no digit follows (the
// letter then is not part of the number, as strtod reads it).
func scanExponent(s string, i int) int {
	j := i + 1
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	if j >= len(s) || !isDigit(s[j]) {
		return i
	}
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j
}

// parseHex reads the part after "0x": hex digits [. hex digits] [p [sign] digits].
func parseHex(s string) (float64, bool) {
	i, digits := scanMantissa(s, isHexDigit)
	if digits == 0 {
		return 0, false
	}
	mantissa := s[:i]
	exp := "p0"
	if i < len(s) && s[i] == 'p' {
		if j := scanExponent(s, i); j > i {
			exp, i = s[i:j], j
		}
	}
	if i != len(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat("0x"+mantissa+exp, 64)
	if err != nil && !isRangeError(err) {
		return 0, false
	}
	return f, true
}

func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// isRangeError reports an overflow or underflow, which strtod answers with
// ±HUGE_VAL or a tiny number rather than a failure.
func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
