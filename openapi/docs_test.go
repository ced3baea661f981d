package openapi_test

// What the README and the contract's prose say must not fall behind what
// the contract does: the scopes a token can hold, the batch documents.

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatalf("read README.md: %v", err)
	}
	return string(b)
}

// TestReadmeNamesEveryScope: the README's list of scopes (read:/write: ×
// resources) names every resource of the contract's x-required-scope, so
// that a reader making a token finds each scope an operation needs.
func TestReadmeNamesEveryScope(t *testing.T) {
	t.Parallel()
	doc := load(t)
	var want []string
	for _, o := range operations(doc) {
		scope, _ := o.Extensions["x-required-scope"].(string)
		if _, resource, ok := strings.Cut(scope, ":"); ok && !slices.Contains(want, resource) {
			want = append(want, resource)
		}
	}
	slices.Sort(want)
	line := regexp.MustCompile("(?s)`read:`/`write:` × (.*?) \\(write implies read").FindStringSubmatch(readme(t))
	if line == nil {
		t.Fatal("README has no list of scopes (`read:`/`write:` × … (write implies read)")
	}
	var got []string
	for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(line[1], -1) {
		got = append(got, m[1])
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the README's scopes, by resource (-contract +README):\n%s", diff)
	}
}

// TestBatchLabelFormatsDocumented: a batch's labels are bought in its
// labelFormat and merged into labels.pdf or labels.zpl; neither the
// contract nor the README may say that every label is a PDF.
func TestBatchLabelFormatsDocumented(t *testing.T) {
	t.Parallel()
	doc := load(t)
	create := doc.Paths.Value("/batches").Post
	for _, where := range []struct{ name, text string }{
		{"createBatch's description", create.Description},
		{"README", readme(t)},
	} {
		for _, document := range []string{"labels.pdf", "labels.zpl"} {
			if !strings.Contains(where.text, document) {
				t.Errorf("%s does not name %s", where.name, document)
			}
		}
		for _, stale := range []string{"every label is a PDF", "labels are PDFs until"} {
			if strings.Contains(where.text, stale) {
				t.Errorf("%s still says %q", where.name, stale)
			}
		}
	}
}

// TestReadmeExamplesComputeTheirDates: a command the README gives to copy
// must work on the day it is read, so its dates are computed (date -d …),
// never written out: a pickup on a day gone by is refused, and so is a
// deliverBy in the past.
func TestReadmeExamplesComputeTheirDates(t *testing.T) {
	t.Parallel()
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(readme(t), -1)
	if len(blocks) == 0 {
		t.Fatal("README has no sh examples")
	}
	date := regexp.MustCompile(`\b20\d\d-[01]\d-[0-3]\d`)
	for _, b := range blocks {
		for _, line := range strings.Split(b[1], "\n") {
			if d := date.FindString(line); d != "" {
				t.Errorf("an example with the fixed date %s: %s", d, strings.TrimSpace(line))
			}
		}
	}
}
