-- Comparison errors name the two types.
print(pcall(function() return 1 < "2" end))
print(pcall(function() return {} < {} end))
print(pcall(function() return nil <= 1 end))
print(pcall(function() return "a" < 1 end))
print(1 == "1", {} == {}, "a" < "b")
