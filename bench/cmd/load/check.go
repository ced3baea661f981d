package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// regressionTolerance is how far below the committed figure a measure may
// fall before make bench-check fails: runs on one quiet machine differ by
// about 10%, a change that costs more than 20% is a regression to look at.
const regressionTolerance = 0.20

// checkRegression compares this run's read ratio (shipd ÷ the bare Echo
// baseline, measured in the same run, so the machine's speed cancels out)
// and purchase rate with the committed results in path, and fails when
// either is more than regressionTolerance below. A measure the committed
// file lacks, or this run did not take, is reported and not compared.
func checkRegression(w io.Writer, path string, res *results) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("-check: %w", err)
	}
	var committed results
	if err := json.Unmarshal(raw, &committed); err != nil {
		return fmt.Errorf("-check %s: %w", path, err)
	}
	type measure struct {
		name, unit string
		ran        bool
		now, then  float64
	}
	measures := []measure{
		{"read path vs baseline", "×", res.ran("read"), res.Read.Ratio, committed.Read.Ratio},
		{"purchases completed, labels queued first", "/s", res.ran("purchase"), res.Purchase.PerSec, committed.Purchase.PerSec},
	}
	fmt.Fprintf(w, "Regression check against %s (%s), tolerance %.0f%%:\n\n", path, committed.GeneratedAt, regressionTolerance*100)
	fmt.Fprintln(w, "| Measure | Committed | This run | Change | Verdict |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | --- |")
	var failed []string
	for _, m := range measures {
		verdict := "ok"
		change := "—"
		switch {
		case !m.ran:
			verdict = "not run"
		case m.then <= 0:
			verdict = "not in the committed file"
		default:
			d := m.now/m.then - 1
			change = fmt.Sprintf("%+.0f%%", d*100)
			if d < -regressionTolerance {
				verdict = "**regression**"
				failed = append(failed, m.name)
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", m.name, format(m.then, m.unit), format(m.now, m.unit), change, verdict)
	}
	fmt.Fprintln(w)
	if len(failed) > 0 {
		return fmt.Errorf("more than %.0f%% below the committed figures: %v", regressionTolerance*100, failed)
	}
	return nil
}

func format(v float64, unit string) string {
	if unit == "×" {
		return fmt.Sprintf("%.2f×", v)
	}
	return fmt.Sprintf("%.0f%s", v, unit)
}
