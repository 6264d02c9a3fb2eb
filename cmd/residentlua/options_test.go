package main

import (
	"reflect"
	"testing"

	"github.com/residentlua/residentlua/devices"
	"github.com/residentlua/residentlua/devices/timing"
	"github.com/residentlua/residentlua/devices/wait"
)

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want options // args is filled in from the case
	}{
		{[]string{"rl"}, options{script: 1}},
		{[]string{"rl", "s.lua", "-e", "x"}, options{script: 1}},
		{[]string{"rl", "-e", "a", "-lmod", "-eb", "-l", "g=m", "s.lua"},
			options{script: 7, steps: []step{{stepExec, "a"}, {stepRequire, "mod"}, {stepExec, "b"}, {stepRequire, "g=m"}}}},
		{[]string{"rl", "-i", "s.lua"}, options{script: 2, interactive: true, version: true}},
		{[]string{"rl", "-v", "-E", "-W"}, options{script: 4, version: true}},
		{[]string{"rl", "-", "a"}, options{script: 1}},
		{[]string{"rl", "--", "-x.lua", "a"}, options{script: 2}},
		{[]string{"rl", "--"}, options{script: 2}},
		{[]string{"rl", "--mode", "sim", "--seed=0x10", "--timing", "published", "--trace=t.json", "--stats", "s.json", "x.lua"},
			options{script: 9, mode: "sim", seed: 16, timing: "published", tracePath: "t.json", statsPath: "s.json"}},
		{[]string{"rl", "--gpu", "cuda", "x.lua"}, options{script: 3, gpu: "cuda"}},
		{[]string{"rl", "--wait", "spin", "--wait=block", "x.lua"}, options{script: 4, wait: "block"}},
		{[]string{"rl", "--help"}, options{script: 2, help: true}},
		{[]string{"rl", "-h", "s.lua"}, options{script: 2, help: true}},
	} {
		got, err := parseArgs(tc.args)
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		tc.want.args = tc.args
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.args, *got, tc.want)
		}
	}
}

func TestFabricConfig(t *testing.T) {
	o, err := parseArgs([]string{"rl", "--mode", "sim", "--seed", "9", "--timing", "published", "--wait", "spin"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := o.fabricConfig()
	if cfg.Mode != devices.Simulated || cfg.Seed != 9 || cfg.Timing != timing.Published() || cfg.Wait != wait.Spin {
		t.Errorf("config %+v", cfg)
	}
	// No options: the fabric's own defaults (zero values).
	o, _ = parseArgs([]string{"rl"})
	if cfg := o.fabricConfig(); !reflect.DeepEqual(cfg, devices.Config{}) {
		t.Errorf("default config %+v", cfg)
	}
}
