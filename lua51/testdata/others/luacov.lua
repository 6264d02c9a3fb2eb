-- A stand-in for LuaCov, which specs require for coverage only.
return {}
