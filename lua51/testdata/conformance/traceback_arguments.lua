-- debug.traceback's arguments are Lua 5.1's: a message that is not a string
-- or a number is returned as it is, a number is a message, and "" is a
-- message followed by a line break (a harness that cuts the first character
-- relies on it). Only the first line is printed: the frames differ.
local function first(s) return (string.format("%q", s:sub(1, 18))) end
print(first(debug.traceback("", 1)))
print(first(debug.traceback()))
print(first(debug.traceback("msg")))
print(first(debug.traceback(12)))
print(debug.traceback(nil), select("#", debug.traceback(nil)), debug.traceback(nil, 2))
local t = {}
print(debug.traceback(t) == t, debug.traceback(false))
print(first(debug.traceback("x", 50)))
local co = coroutine.create(function() coroutine.yield() end)
coroutine.resume(co)
print(first(debug.traceback(co)))
print(first(debug.traceback(co, "hi", 1)))
print(first(debug.traceback(co, 7)))
