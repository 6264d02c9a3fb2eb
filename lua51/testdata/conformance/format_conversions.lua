-- Every conversion of string.format, with flags, width and precision.
print(string.format("%d %i %u %c %o %x %X %#x %#o", 42, 42, 42, 65, 8, 255, 255, 255, 8))
print(string.format("%e|%E|%.3f|%f|%G|%g|%.0f", 12345.678, 0.00012, 1/3, 2.5, 1e-10, 1e20, 2.5))
print(string.format("%5d|%-5d|%05d|%+d|% d|%5.1s|%10.4s|%-6s|", 42, 42, 42, 42, 42, "xyz", "abcdefg", "ab"))
print(string.format("%x", -1), string.format("%d", 3.7), string.format("%d", -3.7), string.format("%%"))
print(string.format("%s %s", 1, "s"), string.format("%c%c%c", 76, 117, 97))
print(string.format("%5s|%-5s|%.2s", "a", "b", "cdef"), string.format("no conversions"))
