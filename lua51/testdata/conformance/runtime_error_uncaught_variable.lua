-- An uncaught error from the runtime names the variable.
print("start")
local config = nil
print(config.path)
