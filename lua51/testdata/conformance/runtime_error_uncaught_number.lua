-- An uncaught error whose value is a number: lua.c prints it as a string.
error(1/3)
