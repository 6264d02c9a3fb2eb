-- Chunks from loadstring: their errors name the chunk, and they see globals.
g = 10
local f = loadstring("return g * 2")
print(f())
print(pcall(loadstring("error('in chunk')")))
print(pcall(loadstring("local t = nil\nreturn t.x", "=named")))
print(pcall(loadstring("return 1 + {}", "@f.lua")))
print(loadstring("return ...")(1, 2, 3))
