-- tostring and type of values whose text is stable.
print(tostring(nil), tostring(true), tostring(false), tostring("s"), tostring(12))
print(type(print), type(nil), type({}), type("x"), type(2), type(coroutine.create(function() end)))
print(tostring(setmetatable({}, {__tostring = function() return "T!" end})))
print(string.match(tostring({}), "^table: ") ~= nil, string.match(tostring(print), "^function") ~= nil)
print(#tostring(1/3), tostring(-0.0) == "-0")
