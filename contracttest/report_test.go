package contracttest

// The coverage gate, the printed matrix and the JUnit XML.

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

// PairState is the verdict on one documented (operation, status).
type PairState string

const (
	Covered   PairState = "covered"   // a scenario passed
	Pending   PairState = "pending"   // on the pending list
	Uncovered PairState = "UNCOVERED" // no scenario, not pending
	Broken    PairState = "FAILING"   // scenarios ran, none passed
	Unchecked PairState = "skipped"   // only in-process-only scenarios, skipped against a deployment
)

// PairReport is one row group of the matrix.
type PairReport struct {
	Pair
	Method, Path string
	State        PairState
	Pending      string
	Results      []Result
}

// Report is the outcome of a run of the whole table.
type Report struct {
	Target   string
	Pairs    []PairReport
	Stray    []Result // scenarios of pairs the contract does not document
	Problems []string // why the coverage gate fails
	Elapsed  time.Duration
}

// buildReport judges coverage. results may be a subset of the table when
// complete is false (go test -run); then the gate reports nothing.
func buildReport(c *Contract, target string, results []Result, pending map[Pair]string, complete bool) Report {
	rep := Report{Target: target}
	byPair := map[Pair][]Result{}
	for _, r := range results {
		if c.Documented(r.Scenario.Pair()) {
			byPair[r.Scenario.Pair()] = append(byPair[r.Scenario.Pair()], r)
		} else {
			rep.Stray = append(rep.Stray, r)
			rep.Problems = append(rep.Problems, fmt.Sprintf("scenario %q provokes %d, which the contract does not document for %s",
				r.Scenario.Name, r.Scenario.Status, r.Scenario.Op))
		}
	}
	for p := range pending {
		if !c.Documented(p) {
			rep.Problems = append(rep.Problems, fmt.Sprintf("pending entry %s is not a documented pair: remove it", p))
		}
	}
	for _, p := range c.Pairs() {
		op, _ := c.Op(p.Op)
		pr := PairReport{Pair: p, Method: op.Method, Path: op.Path, Pending: pending[p], Results: byPair[p]}
		sort.SliceStable(pr.Results, func(i, j int) bool { return pr.Results[i].Scenario.Name < pr.Results[j].Scenario.Name })
		var passed, failed, skipped int
		for _, r := range pr.Results {
			switch r.Outcome {
			case Passed:
				passed++
			case Failed:
				failed++
			case Skipped:
				skipped++
			}
		}
		switch {
		case pr.Pending != "" && passed > 0:
			pr.State = Covered
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s is on the pending list (%s) but a scenario provokes it: remove the entry", p, pr.Pending))
		case pr.Pending != "":
			pr.State = Pending
		case passed > 0:
			pr.State = Covered
		case failed > 0:
			pr.State = Broken
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: every scenario failed", p))
		case skipped > 0:
			pr.State = Unchecked
		default:
			pr.State = Uncovered
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s (%s %s) has no scenario and is not on the pending list", p, op.Method, op.Path))
		}
		rep.Pairs = append(rep.Pairs, pr)
	}
	if !complete {
		rep.Problems = nil
	}
	return rep
}

// Counts sums the report.
func (r Report) Counts() (states map[PairState]int, outcomes map[Outcome]int) {
	states, outcomes = map[PairState]int{}, map[Outcome]int{}
	for _, p := range r.Pairs {
		states[p.State]++
		for _, res := range p.Results {
			outcomes[res.Outcome]++
		}
	}
	for _, res := range r.Stray {
		outcomes[res.Outcome]++
	}
	return states, outcomes
}

// Print writes the matrix: operation × status → scenario → outcome.
func (r Report) Print(w io.Writer) {
	fmt.Fprintf(w, "\n== Contract matrix: openapi/openapi.yaml against %s\n\n", r.Target)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATION\tSTATUS\tRESULT\tCODE\tSCENARIO")
	// Rows of one operation; its first column holds the operation id, then
	// the method and path.
	var rows [][5]string
	flush := func(p PairReport) {
		if len(rows) == 0 {
			return
		}
		if len(rows) == 1 {
			rows = append(rows, [5]string{})
		}
		rows[0][0], rows[1][0] = p.Op, p.Method+" "+p.Path
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r[:], "\t"))
		}
		fmt.Fprintln(tw, "\t\t\t\t")
		rows = nil
	}
	for i, p := range r.Pairs {
		status := fmt.Sprint(p.Status)
		switch {
		case p.State == Pending && len(p.Results) == 0:
			rows = append(rows, [5]string{"", status, "pending", "", p.Pending})
		case len(p.Results) == 0:
			rows = append(rows, [5]string{"", status, string(p.State), "", "no scenario"})
		}
		for _, res := range p.Results {
			outcome := string(res.Outcome)
			note := res.Scenario.Name
			switch res.Outcome {
			case Skipped:
				note += " — " + res.Skip
			case Failed:
				note += " — " + firstLine(strings.Join(res.Problems, "; "), 160)
			}
			if p.Pending != "" {
				outcome += " (pending)"
			}
			rows = append(rows, [5]string{"", status, outcome, res.Scenario.Code, note})
			status = ""
		}
		if i == len(r.Pairs)-1 || r.Pairs[i+1].Op != p.Op {
			flush(p)
		}
	}
	for _, res := range r.Stray {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s — NOT DOCUMENTED\n", res.Scenario.Op, res.Scenario.Status, res.Outcome, res.Scenario.Code, res.Scenario.Name)
	}
	tw.Flush()

	states, outcomes := r.Counts()
	fmt.Fprintf(w, "\n%d documented (operation, status) pairs: %d covered, %d pending, %d skipped, %d failing, %d uncovered\n",
		len(r.Pairs), states[Covered], states[Pending], states[Unchecked], states[Broken], states[Uncovered])
	fmt.Fprintf(w, "%d scenarios: %d passed, %d failed, %d skipped (%.1fs)\n",
		outcomes[Passed]+outcomes[Failed]+outcomes[Skipped], outcomes[Passed], outcomes[Failed], outcomes[Skipped], r.Elapsed.Seconds())
	var pend []string
	for _, p := range r.Pairs {
		if p.Pending != "" {
			pend = append(pend, fmt.Sprintf("  %s: %s", p.Pair, p.Pending))
		}
	}
	if len(pend) > 0 {
		fmt.Fprintf(w, "Pending:\n%s\n", strings.Join(pend, "\n"))
	}
	if len(r.Problems) > 0 {
		fmt.Fprintf(w, "Coverage gate FAILS:\n  %s\n", strings.Join(r.Problems, "\n  "))
	}
	fmt.Fprintln(w)
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// JUnit XML, one test suite per operation plus one for the coverage gate.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// JUnit renders the report.
func (r Report) JUnit() junitSuites {
	out := junitSuites{Name: "contract", Time: seconds(r.Elapsed)}
	suites := map[string]*junitSuite{}
	elapsed := map[string]time.Duration{}
	var order []string
	add := func(suite string, c junitCase, d time.Duration) {
		s := suites[suite]
		if s == nil {
			s = &junitSuite{Name: suite}
			suites[suite] = s
			order = append(order, suite)
		}
		elapsed[suite] += d
		s.Cases = append(s.Cases, c)
		s.Tests++
		if c.Failure != nil {
			s.Failures++
		}
		if c.Skipped != nil {
			s.Skipped++
		}
	}
	caseOf := func(res Result) junitCase {
		c := junitCase{Classname: "contract." + res.Scenario.Op, Name: caseName(res.Scenario), Time: seconds(res.Duration)}
		switch res.Outcome {
		case Failed:
			c.Failure = &junitMessage{Message: firstLine(strings.Join(res.Problems, "; "), 200), Text: strings.Join(res.Problems, "\n")}
		case Skipped:
			c.Skipped = &junitMessage{Message: res.Skip}
		}
		return c
	}
	for _, p := range r.Pairs {
		suite := fmt.Sprintf("%s (%s %s)", p.Op, p.Method, p.Path)
		for _, res := range p.Results {
			add(suite, caseOf(res), res.Duration)
		}
		if len(p.Results) == 0 {
			c := junitCase{Classname: "contract." + p.Op, Name: fmt.Sprintf("%d", p.Status), Time: "0.000"}
			if p.Pending != "" {
				c.Skipped = &junitMessage{Message: "pending: " + p.Pending}
			} else {
				c.Failure = &junitMessage{Message: "no scenario provokes this documented status"}
			}
			add(suite, c, 0)
		}
	}
	for _, res := range r.Stray {
		add("undocumented", caseOf(res), res.Duration)
	}
	gate := junitCase{Classname: "contract.coverage", Name: "every documented status is provoked or pending", Time: "0.000"}
	if len(r.Problems) > 0 {
		gate.Failure = &junitMessage{Message: fmt.Sprintf("%d coverage problems", len(r.Problems)), Text: strings.Join(r.Problems, "\n")}
	}
	add("coverage", gate, 0)
	for _, name := range order {
		s := suites[name]
		s.Time = seconds(elapsed[name])
		out.Suites = append(out.Suites, *s)
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Skipped += s.Skipped
	}
	return out
}

func caseName(sc Scenario) string {
	if sc.Code != "" {
		return fmt.Sprintf("%d %s: %s", sc.Status, sc.Code, sc.Name)
	}
	return fmt.Sprintf("%d: %s", sc.Status, sc.Name)
}

// WriteJUnit writes the JUnit XML to path, creating its directory.
func (r Report) WriteJUnit(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	raw, err := xml.MarshalIndent(r.JUnit(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(raw, '\n')...), 0o644)
}
