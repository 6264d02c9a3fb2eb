package lua51

import (
	"testing"
)

// TestMessageWordsEveryErrorValue checks the message of each kind of error
// value, and that a __tostring that fails or returns a table says so
// rather than giving an empty message.
func TestMessageWordsEveryErrorValue(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	cases := map[string]string{
		`return "plain"`: "plain",
		`return 12.5`:    "12.5",
		`return {}`:      "(error object is a table value)",
		`return setmetatable({}, {__tostring = function() return "through" end})`: "through",
		`return setmetatable({}, {__tostring = function() return 7 end})`:         "7",
		`return setmetatable({}, {__tostring = function() return {} end})`:        "(error object is a table value whose __tostring returned a table value, not a string)",
		`return setmetatable({}, {__tostring = function() return nil end})`:       "(error object is a table value whose __tostring returned a nil value, not a string)",
		`return setmetatable({}, {__tostring = function() error("bad", 0) end})`:  "(error object is a table value whose __tostring raised an error: bad)",
		`return setmetatable({}, {__tostring = function() error({}) end})`:        "(error object is a table value whose __tostring raised an error: (error object is a table value))",
	}
	for src, want := range cases {
		fn, err := LoadString(L, src, "=test")
		if err != nil {
			t.Fatal(err)
		}
		L.Push(fn)
		if err := PCall(L, 0, 1); err != nil {
			t.Fatal(err)
		}
		v := L.Get(-1)
		L.Pop(1)
		if got := Message(L, v); got != want {
			t.Errorf("%s: Message = %q, want %q", src, got, want)
		}
		if top := L.GetTop(); top != 0 {
			t.Errorf("%s: Message left %d values on the stack", src, top)
		}
	}
}
