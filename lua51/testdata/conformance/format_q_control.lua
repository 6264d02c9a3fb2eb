-- %q quotes a string so that loadstring reads it back, control characters
-- included.
local s = "a\0b\r\n\t\"\\\1\127\255z"
local q = string.format("%q", s)
print(q)
print(loadstring("return " .. q)() == s)
local all = {}
for i = 0, 255 do all[#all + 1] = string.char(i) end
local every = table.concat(all)
print(loadstring("return " .. string.format("%q", every))() == every)
print(string.format("%q", 1/3), string.format("%q", "plain"))
