package trace_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/residentlua/residentlua/campaign/trial"
	"github.com/residentlua/residentlua/trace"
)

// schema is docs/trace.schema.json, read with numbers kept exact.
func schema(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile("../docs/trace.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("the schema is not JSON: %v", err)
	}
	return s
}

// conforms checks v against the schema node s, the subset of JSON Schema
// (2020-12) that trace.schema.json uses: $ref to $defs, oneOf, allOf,
// if/then, type, required, properties, additionalProperties false, enum,
// const, pattern, minimum, maximum, minItems, minLength and items. It
// returns why v does not conform, or "".
func conforms(root, s map[string]any, v any) string {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		return conforms(root, root["$defs"].(map[string]any)[name].(map[string]any), v)
	}
	if alts, ok := s["oneOf"].([]any); ok {
		n := 0
		for _, a := range alts {
			if conforms(root, a.(map[string]any), v) == "" {
				n++
			}
		}
		if n != 1 {
			return fmt.Sprintf("%v matches %d of oneOf's schemas, not one", v, n)
		}
	}
	for _, a := range list(s["allOf"]) {
		if why := conforms(root, a.(map[string]any), v); why != "" {
			return why
		}
	}
	if cond, ok := s["if"].(map[string]any); ok && conforms(root, cond, v) == "" {
		if why := conforms(root, s["then"].(map[string]any), v); why != "" {
			return why
		}
	}
	if typ, ok := s["type"].(string); ok && !isType(typ, v) {
		return fmt.Sprintf("%v is not of type %s", v, typ)
	}
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		return fmt.Sprintf("%v is not one of %v", v, enum)
	}
	if c, ok := s["const"]; ok && !reflect.DeepEqual(c, v) {
		return fmt.Sprintf("%v is not %v", v, c)
	}
	if p, ok := s["pattern"].(string); ok {
		if str, isStr := v.(string); isStr && !regexp.MustCompile(p).MatchString(str) {
			return fmt.Sprintf("%q does not match %s", str, p)
		}
	}
	if str, ok := v.(string); ok && s["minLength"] != nil && int64(len(str)) < integer(s["minLength"]).Int64() {
		return fmt.Sprintf("%q is too short", str)
	}
	if n, ok := v.(json.Number); ok {
		x, exact := new(big.Int).SetString(string(n), 10)
		if s["minimum"] != nil && (!exact || x.Cmp(integer(s["minimum"])) < 0) {
			return fmt.Sprintf("%v is below %v", n, s["minimum"])
		}
		if s["maximum"] != nil && (!exact || x.Cmp(integer(s["maximum"])) > 0) {
			return fmt.Sprintf("%v is above %v", n, s["maximum"])
		}
	}
	if arr, ok := v.([]any); ok {
		if s["minItems"] != nil && int64(len(arr)) < integer(s["minItems"]).Int64() {
			return fmt.Sprintf("%v has too few items", arr)
		}
		if items, ok := s["items"].(map[string]any); ok {
			for _, it := range arr {
				if why := conforms(root, items, it); why != "" {
					return why
				}
			}
		}
	}
	if obj, ok := v.(map[string]any); ok {
		for _, r := range list(s["required"]) {
			if _, has := obj[r.(string)]; !has {
				return fmt.Sprintf("%v lacks %s", obj, r)
			}
		}
		props, _ := s["properties"].(map[string]any)
		for k, pv := range obj {
			ps, known := props[k]
			if !known {
				if s["additionalProperties"] == false {
					return fmt.Sprintf("%s is not allowed", k)
				}
				continue
			}
			if why := conforms(root, ps.(map[string]any), pv); why != "" {
				return k + ": " + why
			}
		}
	}
	return ""
}

func list(v any) []any { l, _ := v.([]any); return l }

func integer(v any) *big.Int {
	x, _ := new(big.Int).SetString(string(v.(json.Number)), 10)
	return x
}

func isType(typ string, v any) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		return ok && !strings.ContainsAny(string(n), ".eE")
	}
	return false
}

// checkLines checks every line of text against the schema.
func checkLines(t *testing.T, root map[string]any, text []byte) int {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, trace.MaxLine)
	n := 0
	for sc.Scan() {
		n++
		var v any
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if why := conforms(root, root, v); why != "" {
			t.Fatalf("line %d does not conform to the schema: %s\n%s", n, why, sc.Text())
		}
	}
	return n
}

// What residentlua writes of its own sessions conforms to the schema.
func TestOwnTracesConformToTheSchema(t *testing.T) {
	root := schema(t)
	lines := 0
	for seed := uint64(1); seed <= 40; seed++ {
		text, _ := record(t, trial.Config{Seed: seed})
		lines += checkLines(t, root, text)
	}
	if lines < 1000 {
		t.Errorf("only %d lines checked", lines)
	}
}

// The schema and the decoder agree: the schema refuses what the decoder
// refuses for its shape, and names the same kinds and fields.
func TestSchemaAgreesWithTheDecoder(t *testing.T) {
	root := schema(t)
	defs := root["$defs"].(map[string]any)
	event := defs["event"].(map[string]any)
	kinds := event["properties"].(map[string]any)["kind"].(map[string]any)["enum"].([]any)
	var names []string
	for _, k := range kinds {
		names = append(names, k.(string))
	}
	if !slices.Equal(names, trace.Kinds()) {
		t.Errorf("the schema's kinds %v differ from the decoder's %v", names, trace.Kinds())
	}
	var fields []string
	for f := range event["properties"].(map[string]any) {
		fields = append(fields, f)
	}
	var tags []string
	for f := range reflect.TypeFor[trace.Event]().Fields() {
		tags = append(tags, strings.Split(f.Tag.Get("json"), ",")[0])
	}
	slices.Sort(fields)
	slices.Sort(tags)
	if !slices.Equal(fields, tags) {
		t.Errorf("the schema's event fields %v differ from Event's %v", fields, tags)
	}
	for _, bad := range []string{
		`{"time":1,"actor":"gpu","session":1,"kind":"open","line":10}`,
		`{"time":1,"actor":"host","session":1,"kind":"open"}`,
		`{"time":1,"actor":"host","session":1,"kind":"decide","decision":"GO"}`,
		`{"time":1,"actor":"host","session":1,"kind":"close","result":"fine"}`,
		`{"time":-1,"actor":"host","session":1,"kind":"close","result":"retired"}`,
		`{"time":1,"actor":"host","session":1,"kind":"close","result":"retired","colour":1}`,
		`{"trace":"residentlua","version":2,"kinds":["open"]}`,
	} {
		var v any
		dec := json.NewDecoder(strings.NewReader(bad))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if conforms(root, root, v) == "" {
			t.Errorf("the schema takes %s", bad)
		}
		h := `{"trace":"residentlua","version":1,"kinds":["open","decide","close"]}` + "\n"
		if !strings.Contains(bad, `"trace"`) {
			bad = h + `{"time":0,"actor":"host","session":1,"kind":"open","line":10}` + "\n" + bad
		}
		if _, err := trace.Validate(trace.Input{Name: "bad", R: strings.NewReader(bad + "\n")}); err == nil {
			t.Errorf("the decoder takes %s", bad)
		}
	}
}
