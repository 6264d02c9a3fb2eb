-- "table index is nil" (or NaN) from a field [k] = v of a constructor that
-- spans lines is raised on the line where v ends, as Lua 5.1's compiler
-- gives the field's store that line.
local k, nan = nil, 0 / 0
local function f(...) return ... end
local cases = {
  function() return {
    a = 1,
    [k] = 2,
  } end,
  function() return {1, 2,
    [nan] = 3} end,
  function() return {
    [k]
    =
    2} end,
  function() return {x = {
    y = 1,
    [k] = 2}} end,
  function() return {
    [k] = function()
      return 1
    end,
  } end,
  function() return {
    [k] = f(1,
      2
    ), b = 2} end,
  function() return {
    [k] = 1 +
      2 } end,
  function() return {
    [k] = [[a
b]] } end,
  function() return {
    [k] = {
    } } end,
  function() return {
    [k] = (f(1)
    ) } end,
  function() return {
    [k] = "s" ..
      k } end,
  function() return {
    [k] = -
      1 } end,
  function() return {
    [k] = not
      nil } end,
  function() return {
    [k] = f
      "s" } end,
  function() return {
    [k] = f
      {} } end,
  function(...) return {
    [k] = ... } end,
  function() return {[k] = 1,
  } end,
}
-- wherever the constructor is: the transformer meets constructors in the
-- order their '{' comes
local t = {}
local function g(...) return ... end
local more = {
  function() t[#t + 1] = {a = {b = 1},
    [k] = 1} end,
  function() local a, b = {x = 1}, {y = 2,
    [k] = 1} end,
  function() local a, b = {}, {} a, b = b, {{}, {
    [k] = 1}} end,
  function() for _ in pairs({}) do break end for _, v in ipairs({{}, {
    [k] = 1}}) do break end end,
  function() if {} then local x = {[1] = 2} end if g({}) then local x = {
    [k] = 1} end end,
  function() repeat local x = {} until {x,
    [k] = 1} end,
  function() return g({}):gsub({}, {
    [k] = 1}) end,
  function() return "a" .. g({}) .. g({
    [k] = 1}) end,
  function() local function h() return {} end return h, {z = {},
    [k] = 1} end,
  function() return #{} + #{
    [k] = 1} end,
  function() return {} ~= {n = 1,
    [k] = 1} end,
  function() for i = #{}, #{
    [k] = 1} do end end,
  function() while not {} do end while {
    [k] = 1} do end end,
  function() local x = not {} and {} or {
    [k] = 1} end,
}
for _, case in ipairs(more) do cases[#cases + 1] = case end
for i, case in ipairs(cases) do
  print(i, pcall(case))
end
-- the fields before the failing one are evaluated, those after it not
local seen = {}
local function mark(v) seen[#seen + 1] = v return v end
print(pcall(function() return {
  a = mark(1),
  [mark(nil)] = mark(2),
  b = mark(3),
} end))
print(#seen, seen[1], seen[3], seen[4])
-- a line hook sees each field's line
local lines = {}
debug.sethook(function(_, line) lines[#lines + 1] = line end, "l")
local t = {
  a = 1,
  b = 2,
}
debug.sethook()
print(table.concat(lines, " "))
