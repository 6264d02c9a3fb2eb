-- io.write writes numbers with %.14g.
io.write(0.1 + 0.2, " ", 1/3, " ", 2^53, " ", 1e16, " ", 1/0, " ", -1/0, "\n")
io.write(1e100, " ", 123456789012345, " ", 42, " ", -0.5, "\n")
io.write("no newline at the end")
io.write("\n")
