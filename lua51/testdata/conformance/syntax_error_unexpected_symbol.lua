-- Syntax errors through loadstring, in lua.c's format: unexpected symbols.
print(loadstring("x = = 1"))
print(loadstring("local x = 1\nx = )"))
print(loadstring("return return"))
print(loadstring("f(", "=chunk"))
print(loadstring("x = }", "@file.lua"))
