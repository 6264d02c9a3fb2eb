-- Lexical errors: unfinished strings, malformed numbers, bad escapes.
print(loadstring('x = "abc'))
print(loadstring("x = 'abc\ny'"))
print(loadstring("x = 3x"))
print(loadstring("x = 0x"))
print(loadstring("x = 1e"))
print(loadstring("x = '\\300'"))
print(loadstring("x = @"))
print(loadstring("--[[ unfinished comment"))
