-- A chunk that starts with ESC is a precompiled one, read by Lua 5.1's
-- undump: a truncated or damaged one gets its message.
local function int(n) return string.char(n % 256, math.floor(n / 256) % 256, math.floor(n / 65536) % 256, math.floor(n / 16777216) % 256) end
local function size(n) return int(n) .. int(0) end
local header = "\27Lua\81\0\1\4\8\4\8\0"
local function fn(body) return size(0) .. int(0) .. int(0) .. "\0\0\2\2" .. body end
print(loadstring("\27Lua"))
print(loadstring("\27"))
print(loadstring("\27Lux\81\0\1\4\8\4\8\0"))
print(loadstring("\27Lua\80\0\1\4\8\4\8\0"))
print(loadstring(header))
print(loadstring(header .. size(0) .. int(0)))
print(loadstring(header .. fn(int(1) .. "\30\0\128\0")))
print(loadstring(header .. fn(int(1) .. "\30\0\128\0" .. int(1) .. "\9")))
print(loadstring(header .. fn(int(1) .. "\30\0\128\0" .. int(1) .. "\4" .. size(100) .. "abc")))
print(loadstring(header .. fn(int(4294967295))))
print(loadstring(header, "=named"))
print(loadstring(header, "@file.luac"))
print(load(function() local s = header; header = nil; return s end))
