-- Other syntax errors: break outside a loop, ambiguous syntax, too many
-- names, varargs outside a vararg function.
print(loadstring("break"))
print(loadstring("local f = g\n(f)()"))
print(loadstring("function f() return ... end"))
print(loadstring("local x <const> = 1"))
print(loadstring("goto done"))
print(loadstring("x = 1 y"))
