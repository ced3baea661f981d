package ui

import (
	"errors"
	"net/http"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/shipping"
)

// customsDocument serves an international label's customs document (the
// commercial invoice), as the API's customs.pdf does.
func (u *UI) customsDocument(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	doc, err := u.shipping.CustomsDocument(r.Context(), c, id)
	switch {
	case errors.Is(err, shipping.ErrLabelPending):
		u.renderError(w, r, &c, http.StatusConflict, "The label is not ready yet: the purchase is under way. Reload in a few seconds.")
		return nil
	case errors.Is(err, shipping.ErrLabelUnavailable):
		u.renderError(w, r, &c, http.StatusNotFound, "This shipment has no label document.")
		return nil
	case err != nil:
		return err
	}
	disposition := "inline"
	if r.URL.Query().Get("download") != "" {
		disposition = "attachment"
	}
	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Disposition", disposition+`; filename="customs-`+id+`.pdf"`)
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'self'")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	_, _ = w.Write(doc)
	return nil
}
