-- string.match and string.find return nil when nothing matches, so that
-- table.insert(t, s:match("x")) works.
print(select("#", string.match("abc", "x")), string.match("abc", "x"))
print(select("#", string.find("abc", "x")), string.find("abc", "x"))
print(select("#", string.find("abc", "x", 1, true)), string.find("abc", "z", 10))
local t = {}
table.insert(t, ("abc"):match("x"))
table.insert(t, ("abc"):match("b"))
print(#t, t[1], t[2])
print(string.match("key=val", "(%w+)=(%w+)"))
print(string.match("abc", "()b()"), string.match("hello", ".-(l+)"))
