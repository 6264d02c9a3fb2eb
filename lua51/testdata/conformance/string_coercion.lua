-- Strings in arithmetic convert as tonumber does.
print("12\r" + 1, " 0x10 " * 2, "1e3" + 0, "10" / 4, -"2", "3" % 2, "2" ^ 10)
print(pcall(function() return "abc" + 1 end))
print(10 .. "", ("5"):rep(2), #("x" .. 1.5))
print("10" == 10, "10" + 0 == 10)
