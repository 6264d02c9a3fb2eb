-- A call with more arguments than gopher-lua's compiler has registers for
-- (200; Lua 5.1 has 250) gets them all, evaluated left to right, nils
-- kept, with all the values of a last call or ...; so does a return of as
-- many values, and a shorter call in a function whose locals hold most
-- registers.
local function list(n, item, last)
  local items = {}
  for i = 1, n do items[i] = item(i) end
  if last then items[#items + 1] = last end
  return table.concat(items, ", ")
end
local function count(...) return select("#", ...), (select(1, ...)), (select(select("#", ...), ...)) end
print(#assert(loadstring("return string.char(" .. list(210, function(i) return tostring(i % 256) end) .. ")"))())
-- nils in the middle and at the end are kept
local holes = function(i) return (i % 3 == 0 or i > 205) and "nil" or tostring(i) end
local f = assert(loadstring("local count = ... return count(" .. list(210, holes) .. ")"))
print(f(count))
f = assert(loadstring("local id = ... local t = {id(" .. list(210, holes) .. ")} return t[1], t[3], t[4], t[205], t[206]"))
print(f(function(...) return ... end))
-- a last call or ... gives all its values; one in parentheses, or not last, one
local function three() return "a", nil, "c" end
f = assert(loadstring("local count, three = ... return count(" .. list(205, tostring, "three()") .. ")"))
print(f(count, three))
f = assert(loadstring("local count, three = ... return count(" .. list(205, tostring, "(three())") .. ")"))
print(f(count, three))
f = assert(loadstring("local count, three = ... return count(three(), " .. list(205, tostring, "three(), 'z'") .. ")"))
print(f(count, three))
f = assert(loadstring("return function(count, ...) return count(" .. list(205, tostring, "...") .. ") end"))()
print(f(count, "x", nil, "y", nil))
print(f(count))
-- left to right, the function before its arguments
local order = {}
local function mark(v) order[#order + 1] = v return v end
f = assert(loadstring("local mark, count = ... return mark(count)(" .. list(210, function(i) return "mark(" .. i .. ")" end) .. ")"))
print(f(mark, count))
print(#order, order[1] == count, order[2], order[100], order[101], order[211])
-- a method call
local obj = {n = 0}
function obj:add(...) self.n = self.n + select("#", ...) return self end
f = assert(loadstring("local obj = ... return obj:add(" .. list(220, tostring) .. ").n"))
print(f(obj))
-- a return of 220 values
f = assert(loadstring("local three = ... return " .. list(220, holes, "three()")))
print(count(f(three)))
print(select(199, f(three)))
-- a call of 120 arguments in a function with 100 locals
local names = {}
for i = 1, 100 do names[i] = "a" .. i end
f = assert(loadstring("local " .. table.concat(names, ", ") .. " = " .. list(100, tostring) .. "\n"
  .. "local count = ... return count(" .. table.concat(names, ", ") .. ", " .. list(20, holes) .. ")"))
print(f(count))
-- an error in an argument names its variable, on its line
f = assert(loadstring("return string.char(" .. list(150, tostring) .. ",\n x.y, " .. list(60, tostring) .. ")"))
print(pcall(f))
-- a Go function numbers its arguments as Lua 5.1's does
print(pcall(assert(loadstring("return string.char(" .. list(210, function(i) return i == 201 and "300" or "65" end) .. ")"))))
