-- Lua 5.1 names the operand of a failed operation on an and/or chain after
-- the last instruction that its symbolic execution of the bytecode finds
-- writing the chain's register, taking every forward jump: a chain whose
-- test of the first operand jumps to the last operand names that one,
-- whatever value failed; one that ends at a test names nothing.
t = {s = "x", n = false}; gs = "g"; k = "s"; n = nil
local up = "u"
local function try(f) print(select(2, pcall(f))) end
local function f() return "r" end
local function chains()
  local l = "l"
  try(function() return (t.s and "k" or gs) ^ 2 end)
  try(function() return (t.s and "k" or gs) % 2 end)
  try(function() return (t.s and "k" or gs) + 2 end)
  try(function() return 2 * (t.s and "k" or gs) end)
  try(function() return #(t.s and 1 or gs) end)
  try(function() return (t.s and n or gs) .. {} end)
  try(function() return (t.s and gs) ^ 2 end)
  try(function() return (l or gs) ^ 2 end)
  try(function() return (nil or up) * 2 end)
  try(function() return (nil or t.s) ^ 2 end)
  try(function() return (gs and t.n or t.s) ^ 0.5 end)
  try(function() return (t.n or t[k]) - 1 end)
  try(function() return (gs == 1 or t.s) ^ 2 end)
  try(function() return (not gs and (l < "z") or gs) ^ 2 end)
  try(function() return (l and true or t[k]) .. {} end)
  try(function() return (t.s and f() or l) ^ 2 end)
  try(function() return ((gs == 1) and (gs == 1) or up) % 2 end)
end
chains()
local s = t.s
print(pcall(function() return (s and "k" or gs) ^ 2 end))
local v = (t.s and "k" or gs) ^ 2
