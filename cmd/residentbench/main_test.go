package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/devices"
)

func TestParseWaits(t *testing.T) {
	for name, want := range map[string][]devices.WaitPolicy{
		"spin":   {devices.WaitSpin},
		"hybrid": {devices.WaitHybrid},
		"block":  {devices.WaitBlock},
		"all":    {devices.WaitHybrid, devices.WaitSpin, devices.WaitBlock},
		"":       nil, // each table's default
	} {
		got, err := parseWaits(name)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseWaits(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := parseWaits("busy"); err == nil || !strings.Contains(err.Error(), "spin, hybrid, block or all") {
		t.Errorf("parseWaits(\"busy\") = %v; want an error listing the choices", err)
	}
	if got := waitNames(devices.WaitPolicies()); got != "hybrid,spin,block" {
		t.Errorf("waitNames = %q", got)
	}
	if got := waitNames(nil); got != "default" {
		t.Errorf("waitNames(nil) = %q, want default", got)
	}
}
