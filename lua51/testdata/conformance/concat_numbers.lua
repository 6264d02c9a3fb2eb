-- The .. operator converts numbers with %.14g.
print(0.1 + 0.2 .. "", 1/3 .. "|", 2^53 .. "", 1e16 .. "", 1/0 .. "", -1/0 .. "")
print("x" .. 1e100 .. "y" .. 123456789012345 .. "z" .. 10 .. 2.5)
print(1 .. 2, type(1 .. 2))
