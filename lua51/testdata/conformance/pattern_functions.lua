-- gsub, gmatch and find with captures, anchors, classes and replacements.
print(string.gsub("hello world", "o", "0"))
print(string.gsub("hello world", "(o)", "[%1]", 1))
print(string.gsub("abc", "%w", "%0%0"))
print(string.gsub("$name is $age", "%$(%w+)", {name = "Ann", age = 30}))
print(string.gsub("1 2 3", "%d", function(d) return d * 2 end))
print(string.gsub("abc", "", "-"))
print(string.find("a.b", ".", 1, true), string.find("a.b", "%."), string.find("abc", "^b"))
print(string.find("abc", "c$"), string.find("abc", "b", -2), string.find("", ""))
local parts = {}
for k, v in string.gmatch("a=1, b=2, c=3", "(%w+)=(%w+)") do parts[#parts + 1] = k .. v end
print(table.concat(parts, " "))
print(string.match("  trim  ", "^%s*(.-)%s*$") .. "|", string.match("2024-01-15", "(%d+)-(%d+)-(%d+)"))
print(pcall(string.gsub, "x", "(", ""))
print(pcall(string.find, "x", "[a"))
print(pcall(string.gsub, "x", "x", "%2"))
