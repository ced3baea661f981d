package batches

import (
	"strconv"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/shipping"
)

// batchPieceIssues are the items of a batch that CheckPieceFormat refuses
// in the batch's format.
func batchPieceIssues(items []BatchItem, format string) []shipping.Issue {
	var issues []shipping.Issue
	for i, it := range items {
		if err := shipping.CheckPieceFormat(it.Input.Normalized(), carriers.LabelFormat(format)); err != nil {
			issues = append(issues, shipping.Issue{Path: "shipments." + strconv.Itoa(i) + ".parcels", Message: "cannot be bought as png labels: png holds one label; a batch of several-parcel shipments is pdf or zpl"})
		}
	}
	return issues
}
