package ui

import (
	"net/http"

	"github.com/shipd-dev/shipd/accounts"
)

// customsDocument serves an international label's customs document (the
// commercial invoice), as the API's customs.pdf does.
func (u *UI) customsDocument(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	id := r.PathValue("id")
	doc, err := u.customs.CustomsDocument(r.Context(), c, id)
	return u.serveDocument(w, r, c, err, doc, "application/pdf", "customs-"+id+".pdf")
}
