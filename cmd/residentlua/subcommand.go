package main

import (
	"fmt"
	"strings"
)

// parseSubcommandArgs reads the words after a subcommand (campaign, check):
// --help or -h, the options it knows (valued says which take a value,
// written --name value or --name=value; the others are switches, written
// --name), each handed to set (a switch with ""), and at most one word that
// is no option: the script (what names it in the error when there are
// more), "-" for standard input. An option it does not know is refused as
// unrecognized, wherever it stands.
func parseSubcommandArgs(sub, what string, args []string, valued map[string]bool, set func(name, value string) error) (script string, help bool, err error) {
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--help" || a == "-h" {
			help = true
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			words = append(words, a)
			continue
		}
		name, value, attached := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		takesValue, known := valued[name]
		switch {
		case !strings.HasPrefix(a, "--") || !known:
			return "", false, &usageError{fmt.Sprintf("%s: unrecognized option '%s'", sub, a)}
		case !takesValue && attached:
			return "", false, &usageError{fmt.Sprintf("%s: '--%s' takes no argument", sub, name)}
		case takesValue && !attached:
			if i+1 >= len(args) {
				return "", false, &usageError{fmt.Sprintf("%s: '--%s' needs argument", sub, name)}
			}
			i++
			value = args[i]
		}
		if err := set(name, value); err != nil {
			return "", false, err
		}
	}
	switch len(words) {
	case 0:
		return "", help, nil
	case 1:
		return words[0], help, nil
	}
	return "", false, &usageError{fmt.Sprintf("one %s at most, got %s", what, strings.Join(words, " "))}
}
