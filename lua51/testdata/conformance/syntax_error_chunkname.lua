-- The chunk name in syntax errors: [string "..."] cut at the first line or
-- after a limit, "=name" as given, "@file" as the file name.
print(loadstring("x = = 1", "=my chunk"))
print(loadstring("x = = 1", "@some/file.lua"))
print(loadstring("local a = 1\nlocal b = = 2"))
print(loadstring("local aaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbb, cccccccccccccccccccccc, dddddddddddddddddddd = = 1"))
print(loadstring("x = = 1", "short name"))
print(loadstring("return 1") ~= nil, loadstring("return ...")(5))
