package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/shipd-dev/shipd/gen"
	"github.com/shipd-dev/shipd/shipping"
)

// maxRenderedLabels bounds the answers kept; a full map drops an arbitrary
// one for each new one. An answer is about 1.5 KiB, and the heap peaks at
// three times what is live (GOGC=200, cmd/shipd): 4,096 answers took make
// bench's peak RSS over its 150 MiB.
const maxRenderedLabels = 1024

// renderedLabels keeps the JSON of GET /labels/{id} answers. Encoding a
// shipment is an eighth of a read's CPU (bench/README.md), and a label is
// read far more often than it changes. An answer is a function of the
// shipment and the public base URL of its links alone, and a shipment's
// Revision names exactly what it was made from, so an answer kept for the
// same ID, base and revision is the answer a new rendering would give. A
// shipment without a revision (read from the database) is rendered and
// not kept. The caller's right to the shipment was decided by the read
// that produced the revision, before the map is asked.
type renderedLabels struct {
	mu      sync.RWMutex
	answers map[renderedKey]renderedLabel
}

type renderedKey struct{ id, base string }

type renderedLabel struct {
	rev  shipping.Revision
	body []byte
}

func newRenderedLabels() *renderedLabels {
	return &renderedLabels{answers: map[renderedKey]renderedLabel{}}
}

// answer is the GET /labels/{id} answer for sh with links under base.
func (r *renderedLabels) answer(base string, sh shipping.Shipment) (gen.GetLabelResponseObject, error) {
	if sh.Revision == (shipping.Revision{}) {
		return gen.GetLabel200JSONResponse(shipmentView(base, sh)), nil
	}
	k := renderedKey{sh.ID, base}
	r.mu.RLock()
	kept, ok := r.answers[k]
	r.mu.RUnlock()
	if ok && kept.rev == sh.Revision {
		return labelJSON(kept.body), nil
	}
	view := gen.GetLabel200JSONResponse(shipmentView(base, sh))
	// As the generated response encodes it, so both answers are the same bytes.
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(view); err != nil {
		return nil, err
	}
	r.mu.Lock()
	if len(r.answers) >= maxRenderedLabels {
		for old := range r.answers {
			delete(r.answers, old)
			break
		}
	}
	body := bytes.Clone(buf.Bytes()) // the buffer's spare capacity is not kept
	r.answers[k] = renderedLabel{rev: sh.Revision, body: body}
	r.mu.Unlock()
	return labelJSON(body), nil
}

// labelJSON is a GET /labels/{id} 200 answer already encoded.
type labelJSON []byte

func (b labelJSON) VisitGetLabelResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(b)
	return err
}
