// Package exports holds no code. Its test reads the module's Go files and
// checks the exported surface of the runtime (devices), the engine and
// luaprogram: devices keeps few exported names (maxDevices), and each
// exported name of the three has a user outside its package or a listed
// reason why not.
package exports
