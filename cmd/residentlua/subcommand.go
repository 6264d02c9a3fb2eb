package main

import (
	"fmt"
	"strings"
)

// parseSubcommandArgs reads the words after a subcommand (campaign, check):
// --help or -h, options written --name value or --name=value, each handed
// to set, and the words that are no option (a script, "-" among them),
// returned in order.
func parseSubcommandArgs(sub string, args []string, set func(name, value string) error) (words []string, help bool, err error) {
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
			return nil, false, &usageError{fmt.Sprintf("%s: unrecognized option '%s'", sub, a)}
		}
		name, value, attached := strings.Cut(a[2:], "=")
		if !attached {
			if i+1 >= len(args) {
				return nil, false, &usageError{fmt.Sprintf("'--%s' needs argument", name)}
			}
			i++
			value = args[i]
		}
		if err := set(name, value); err != nil {
			return nil, false, err
		}
	}
	return words, help, nil
}
