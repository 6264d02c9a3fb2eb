-- table.concat converts numbers with %.14g.
print(table.concat({0.1 + 0.2, 1/3, 2^53, 1e16, 1/0, -1/0}, " "))
print(table.concat({1e100, 123456789012345, 42, -0.5}, ","))
print(table.concat({1, 2, 3}, ", ", 2, 3), table.concat({}, "x"), table.concat({"a"}, "x", 1, 0))
print(pcall(table.concat, {1, {}, 3}))
