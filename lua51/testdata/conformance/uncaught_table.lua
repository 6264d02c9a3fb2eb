-- An uncaught error whose value is not a string or a number prints lua.c's
-- "(error object is not a string)".
print("before")
error({code = 1})
