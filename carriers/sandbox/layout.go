package sandbox

import "strings"

// labelFacts are the right column of the FROM block, as the PDF's
// fromBlock writes them: what a sorter checks at a glance.
func labelFacts(in LabelInput) [][2]string {
	facts := [][2]string{
		{"SHIP DATE", in.Date.UTC().Format("2006-01-02")},
		{"WEIGHT", formatWeight(in.WeightOz, in.Metric)},
	}
	if in.Reference != "" {
		facts = append(facts, [2]string{"REF", in.Reference})
	}
	return facts
}

// labelFlags is the reversed band under SHIP TO, as the PDF's shipTo
// writes it; "" when there is none.
func labelFlags(in LabelInput) string {
	var flags []string
	if in.Pieces > 1 {
		flags = append(flags, pieceMark(in))
	}
	if in.SignatureRequired {
		flags = append(flags, "SIGNATURE REQUIRED")
	}
	if in.CustomsContents != "" {
		flags = append(flags, "CUSTOMS: "+strings.ToUpper(strings.ReplaceAll(in.CustomsContents, "_", " ")))
	}
	return strings.Join(flags, "  |  ")
}
