-- string.format's %s converts numbers with %.14g.
print(string.format("%s %s %s %s %s %s", 0.1 + 0.2, 1/3, 2^53, 1e16, 1/0, -1/0))
print(string.format("%s|%s|%s", 1e100, 123456789012345, 42))
print(string.format("%10s|%-10s|", 1/3, 2^53))
