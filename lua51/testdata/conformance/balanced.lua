-- %b balanced matches.
print(string.find("x(a(b)c)d", "%b()"))
print(string.match("f(a, g(b)) + h(c)", "%b()"))
print(string.gsub("[a][b[c]] [d", "%b[]", "<>"))
print(string.find("no parens", "%b()"), string.match("((", "%b()"))
print(string.match('say "hi" now', '%b""'))
