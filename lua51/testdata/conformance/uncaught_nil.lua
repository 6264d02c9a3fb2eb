-- An uncaught error() prints no message; the status is still 1.
print("before")
error()
