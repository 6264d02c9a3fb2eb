-- print writes each argument up to a NUL byte, as lua5.1's fputs does;
-- io.write writes every byte. An uncaught error message also ends at a NUL.
print("a\0b", "c")
io.write("x\0y\n")
print(("z\0"):rep(2), 1)
error("stops\0here")
