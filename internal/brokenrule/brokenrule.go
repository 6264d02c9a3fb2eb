// Package brokenrule holds the one rule of the protocol that the devices,
// rather than the engine, can be built to break: a device that admits a
// second invocation while one it admitted has not retired. Tests set it to
// show that the oracle and the model checker catch a device that does
// (package engine's rules are its own, in engine/brokenrule.go). Being
// internal, it is reachable from this module alone, and only test files
// set it (TestOnlyTestsBreakRules checks that no other file does).
package brokenrule

// SecondInvocation, while true, lets a device admit a dispatch while an
// invocation it admitted has not retired. It is false except while a test
// that breaks the rule runs.
var SecondInvocation bool
