package campaign_test

import (
	"os"
	"strings"
	"testing"
)

// TestDocsShowTheTestedGoTrial keeps docs/campaigns.md's Go trial the one
// ExampleFunc runs, and the summary it shows the one ExampleFunc prints.
func TestDocsShowTheTestedGoTrial(t *testing.T) {
	doc, example := readFile(t, "../docs/campaigns.md"), readFile(t, "example_test.go")
	start := strings.Index(example, "func sessionTrial(")
	end := strings.Index(example[start:], "\n}\n") + start + 3
	if !strings.Contains(doc, "```go\n"+example[start:end]+"```") {
		t.Error("docs/campaigns.md does not show sessionTrial of campaign/example_test.go as it is")
	}
	i := strings.Index(doc, "```text\ncampaign: 40 trials of session")
	if i < 0 {
		t.Fatal("docs/campaigns.md shows no summary of the Go trial's campaign")
	}
	shown := strings.TrimSuffix(strings.SplitN(doc[i+len("```text\n"):], "```", 2)[0], "...\n")
	var printed strings.Builder
	for _, line := range strings.Split(example[strings.Index(example, "// Output:\n")+len("// Output:\n"):], "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "//") {
			break
		}
		printed.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "//"), " ") + "\n")
	}
	if !strings.HasPrefix(printed.String(), shown) {
		t.Errorf("docs/campaigns.md shows the summary\n%s\nbut ExampleFunc prints\n%s", shown, printed.String())
	}
}

// TestPackageDocShowsTheTestedExample keeps the campaign of the package
// doc the one Example runs.
func TestPackageDocShowsTheTestedExample(t *testing.T) {
	doc, example := readFile(t, "campaign.go"), readFile(t, "example_test.go")
	start := strings.Index(example, "\tsum, err := campaign.Run(context.Background(), campaign.Config{\n\t\tTrials:  1000,")
	end := strings.Index(example[start:], "\t})\n") + start + len("\t})\n")
	if start < 0 || end < start {
		t.Fatal("example_test.go has no Example of dice")
	}
	var shown strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(example[start:end], "\n"), "\n") {
		shown.WriteString("//" + line + "\n")
	}
	want := strings.Replace(shown.String(), "context.Background()", "ctx", 1)
	if !strings.Contains(doc, want) {
		t.Errorf("the package doc does not show Example's campaign as it is:\n%s", want)
	}
}

// readFile is the text of the file at path.
func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
