package manifests

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/sandbox"
	"github.com/shipd-dev/shipd/store"
)

// AuditManifestFormRecovered (store.AuditEntry.Action, target the manifest
// id and the form number): the carrier had already made the manifest's
// form, under an earlier run whose answer was lost, and the manifest took
// that form instead of failing on the carrier's refusal to make a second.
const AuditManifestFormRecovered = "manifest.form_recovered"

// recoveredForm completes a form the carrier answered as already made
// (carriers.ManifestForm.Recovered): an earlier run of the job asked for it
// and died before recording the answer, so the retry met the carrier's
// refusal to put the labels on a second form (USPS: "already on SCAN form
// N"; FedEx: "no shipments to close", then a reprint). USPS cannot give a
// SCAN form's image again, only its number: shipd draws the PS Form 5630
// of that number (its barcode and the labels), as its sandbox draws forms.
func (s *Service) recoveredForm(ctx context.Context, row store.Manifest, req carriers.ManifestRequest, form carriers.ManifestForm) (carriers.ManifestForm, error) {
	s.log.WarnContext(ctx, "manifest recovered: the carrier had already made the form of these labels, under an earlier attempt whose answer was lost",
		slog.String("manifest_id", row.ID), slog.String("carrier", row.Carrier), slog.String("form_number", form.Number),
		slog.Bool("form_drawn_by_shipd", form.PDF == nil))
	if form.PDF != nil {
		return form, nil
	}
	numbers := make([]string, len(req.Labels))
	for i, l := range req.Labels {
		numbers[i] = l.TrackingNumber
	}
	pdf, err := sandbox.RenderManifest(sandbox.ManifestInput{Title: "USPS SCAN FORM - PS FORM 5630", Number: form.Number,
		From: req.From, Date: req.ShipDate, TrackingNumbers: numbers, TestMode: req.TestMode})
	if err != nil {
		return carriers.ManifestForm{}, fmt.Errorf("draw the recovered form %s: %w", form.Number, err)
	}
	form.PDF = pdf
	return form, nil
}
