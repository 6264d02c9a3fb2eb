-- os.exit takes a number, as in Lua 5.1: true and false are argument
-- errors (the script ends with the second one's message, status 1).
print(pcall(os.exit, true))
print(pcall(os.exit, false))
print(pcall(os.exit, {}))
print(pcall(os.exit, "x"))
os.exit(true)
