-- An uncaught error whose value is not a string: lua.c says so.
print("start")
error({code = 1})
