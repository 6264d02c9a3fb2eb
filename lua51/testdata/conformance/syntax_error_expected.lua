-- Syntax errors that name what was expected.
print(loadstring("x y"))
print(loadstring("local function 1() end"))
print(loadstring("for i = 1 do end"))
print(loadstring("for a b in c do end"))
print(loadstring("t = {1 2}"))
print(loadstring("f(1 2)"))
print(loadstring("if x y = 1 end"))
print(loadstring("local t = {}\nt.1 = 2"))
