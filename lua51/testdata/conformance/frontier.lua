-- %f frontier patterns.
print(string.find("THE (quick) fox", "%f[%a]%a+"))
print(string.find("THE (quick) fox", "%f[%a]%a+", 5))
print(string.gsub("THE (quick) fox", "%f[%a]%a+", "W"))
print(string.gsub("the cat and the dog", "%f[%w]the%f[%W]", "A"))
print(string.find("hello world", "%f[%w]w"), string.find("aaa", "%f[a]"), string.find("aaa", "%f[%z]"))
for w in string.gmatch("one two  three", "%f[%S]%S+") do io.write(w, ";") end
print()
print(string.find("x1y22z", "%f[%d]%d+"), string.match("abc123", "%f[%d].*"))
