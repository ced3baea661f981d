package ui

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/shipping"
	"github.com/shipd-dev/shipd/shipping/batches"
)

// The batches page: the mode's batches (POST /api/v1/batches), newest
// first, with their counts now and a link to download every purchased
// label of a batch as one PDF.

type batchesPage struct {
	Batches []batches.Batch
	First   bool
	More    bool
	Next    url.Values
}

const batchesPerPage = 25

func (u *UI) batchesPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	p, err := pageRequest(r, batchesPerPage)
	if err != nil {
		return err
	}
	list, more, err := u.batches.ListBatches(r.Context(), c, p)
	if err != nil {
		return err
	}
	page := batchesPage{Batches: list, More: more, First: r.URL.Query().Get("after") == ""}
	if more && len(list) > 0 {
		page.Next = nextPage(r, list[len(list)-1].ID)
	}
	u.render(w, r, http.StatusOK, "batches", view{Title: "Batches", Section: "batches", Caller: &c, Page: page})
	return nil
}

// batchLabels downloads the batch's merged labels (labels.pdf, or
// labels.zpl for a ZPL batch), streamed as the API does.
func (u *UI) batchLabels(ext string) func(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	merged := u.batches.BatchLabelsPDF
	if ext == "zpl" {
		merged = u.batches.BatchLabelsZPL
	}
	return func(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
		return u.writeBatchDocument(w, r, c, "labels", ext, merged)
	}
}

// batchCustoms downloads the customs documents of the batch's
// international labels (customs.pdf), streamed as the API does.
func (u *UI) batchCustoms(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	return u.writeBatchDocument(w, r, c, "customs", "pdf", u.batches.BatchCustomsPDF)
}

// writeBatchDocument streams a batch's merged document, downloaded as
// name-<batch id>.ext.
func (u *UI) writeBatchDocument(w http.ResponseWriter, r *http.Request, c accounts.Caller, name, ext string,
	merged func(context.Context, accounts.Caller, string) (func(io.Writer) error, error)) error {
	id := r.PathValue("id")
	write, err := merged(r.Context(), c, id)
	var (
		format   *batches.BatchFormatError
		noLabels *batches.NoLabelsError
	)
	switch {
	case errors.Is(err, shipping.ErrLabelPending):
		u.renderError(w, r, &c, http.StatusConflict, "Some labels of this batch are not ready yet: their purchases are under way. Reload in a few seconds.")
		return nil
	case errors.As(err, &format), errors.As(err, &noLabels):
		u.renderError(w, r, &c, http.StatusConflict, sentence(err))
		return nil
	case err != nil:
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/"+ext)
	h.Set("Content-Disposition", `attachment; filename="`+name+`-`+id+`.`+ext+`"`)
	h.Set("Content-Security-Policy", "default-src 'none'")
	if err := write(w); err != nil {
		// The response has begun: it can only end short.
		u.log.ErrorContext(r.Context(), "batch document cut short", slog.String("batch_id", id), slog.String("document", name), slog.Any("error", err))
	}
	return nil
}
