package fedex

import (
	"encoding/json"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// soldAnswer is the part of a ship answer that names what FedEx sold: its
// tracking numbers, without the documents.
type soldAnswer struct {
	Output *struct {
		TransactionShipments []struct {
			MasterTrackingNumber string `json:"masterTrackingNumber"`
			PieceResponses       []struct {
				TrackingNumber       string `json:"trackingNumber"`
				MasterTrackingNumber string `json:"masterTrackingNumber"`
			} `json:"pieceResponses"`
		} `json:"transactionShipments"`
	} `json:"output"`
}

// soldIn reads what a ship answer sold when the label in it cannot be
// used, so that the purchase voids it (carriers.Unusable): the master
// tracking number, which cancels every package, and the pieces' numbers.
// A Label without a tracking number when the answer names none.
func soldIn(body []byte) carriers.Label {
	var a soldAnswer
	if json.Unmarshal(body, &a) != nil || a.Output == nil || len(a.Output.TransactionShipments) == 0 {
		return carriers.Label{}
	}
	ts := a.Output.TransactionShipments[0]
	var sold carriers.Label
	master := strings.TrimSpace(ts.MasterTrackingNumber)
	for _, p := range ts.PieceResponses {
		if tn := strings.TrimSpace(p.TrackingNumber); tn != "" {
			sold.Pieces = append(sold.Pieces, tn)
		}
		if master == "" {
			master = strings.TrimSpace(p.MasterTrackingNumber)
		}
	}
	sold.TrackingNumber = master
	if master == "" && len(sold.Pieces) > 0 {
		sold.TrackingNumber = sold.Pieces[0]
	}
	if len(sold.Pieces) < 2 {
		sold.Pieces = nil
	}
	return sold
}
