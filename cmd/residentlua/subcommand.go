package main

import (
	"fmt"
	"strings"
)

// parseSubcommandArgs reads the words after a subcommand (campaign, check):
// --help or -h, options written --name value or --name=value, each handed
// to set, and at most one word that is no option: the script (what names
// it in the error when there are more), "-" for standard input.
func parseSubcommandArgs(sub, what string, args []string, set func(name, value string) error) (script string, help bool, err error) {
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
		if !strings.HasPrefix(a, "--") {
			return "", false, &usageError{fmt.Sprintf("%s: unrecognized option '%s'", sub, a)}
		}
		name, value, attached := strings.Cut(a[2:], "=")
		if !attached {
			if i+1 >= len(args) {
				return "", false, &usageError{fmt.Sprintf("'--%s' needs argument", name)}
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
