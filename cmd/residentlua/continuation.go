package main

// continuation follows the lines of a chunk the REPL reads, token by token,
// to say when the chunk may be complete: its brackets and blocks closed and
// no long string, long comment or string left open. Compiling the chunk
// after every line would make a pasted chunk of n lines cost n compiles of
// up to n lines; the REPL compiles it only when it may be complete (and,
// in case this count is wrong or a syntax error hides in an open block, at
// every doubling of its lines).
type continuation struct {
	depth int  // open brackets and blocks (function, if, do, repeat) less closed ones
	long  int  // the level of the long string or comment open, or -1
	quote byte // the quote of a string continued by a backslash-newline, or 0
}

// newContinuation is the state before a chunk's first line.
func newContinuation() *continuation { return &continuation{long: -1} }

// mayBeComplete reports whether the lines so far may make a complete
// chunk (or one with a syntax error before its end).
func (c *continuation) mayBeComplete() bool {
	return c.depth <= 0 && c.long < 0 && c.quote == 0
}

// add follows one more line.
func (c *continuation) add(line string) {
	i := 0
	if c.long >= 0 {
		i = c.closeLong(line, 0)
	}
	if c.quote != 0 {
		i = c.closeString(line, 0, c.quote)
	}
	for i < len(line) {
		ch := line[i]
		switch {
		case ch == '-' && i+1 < len(line) && line[i+1] == '-':
			if level, n := longOpen(line[i+2:]); level >= 0 {
				c.long = level
				i = c.closeLong(line, i+2+n)
				continue
			}
			return // a comment to the end of the line
		case ch == '[':
			if level, n := longOpen(line[i:]); level >= 0 {
				c.long = level
				i = c.closeLong(line, i+n)
				continue
			}
			c.depth++
		case ch == '{' || ch == '(':
			c.depth++
		case ch == '}' || ch == ')' || ch == ']':
			c.depth--
		case ch == '"' || ch == '\'':
			i = c.closeString(line, i+1, ch)
			continue
		case isNameStart(ch):
			j := i
			for j < len(line) && (isNameStart(line[j]) || isDigit(line[j])) {
				j++
			}
			switch line[i:j] {
			case "function", "if", "do", "repeat":
				c.depth++
			case "end", "until":
				c.depth--
			}
			i = j
			continue
		case isDigit(ch):
			for i < len(line) && (isNameStart(line[i]) || isDigit(line[i]) || line[i] == '.') {
				i++
			}
			continue
		}
		i++
	}
}

// longOpen reads the opening of a long bracket at the start of s ("[[",
// "[==["): its level and length, or -1.
func longOpen(s string) (level, n int) {
	if len(s) == 0 || s[0] != '[' {
		return -1, 0
	}
	n = 1
	for n < len(s) && s[n] == '=' {
		n++
	}
	if n < len(s) && s[n] == '[' {
		return n - 1, n + 1
	}
	return -1, 0
}

// closeLong looks for the close of the open long bracket from line[i:],
// and returns where scanning goes on: after it, or the line's end.
func (c *continuation) closeLong(line string, i int) int {
	for ; i < len(line); i++ {
		if line[i] != ']' {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] == '=' {
			j++
		}
		if j < len(line) && line[j] == ']' && j-i-1 == c.long {
			c.long = -1
			return j + 1
		}
	}
	return len(line)
}

// closeString looks for the close of a string quoted by q from line[i:]:
// a backslash at the line's end continues it on the next line; a line's
// end otherwise leaves it unfinished, an error the compiler reports.
func (c *continuation) closeString(line string, i int, q byte) int {
	c.quote = 0
	for ; i < len(line); i++ {
		switch line[i] {
		case '\\':
			if i+1 == len(line) {
				c.quote = q
				return len(line)
			}
			i++
		case q:
			return i + 1
		}
	}
	return len(line)
}

func isNameStart(ch byte) bool {
	return ch == '_' || 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z'
}

func isDigit(ch byte) bool { return '0' <= ch && ch <= '9' }
