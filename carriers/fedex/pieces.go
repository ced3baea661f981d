package fedex

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// Multi-piece shipments (MPS): FedEx ships several packages under one
// master tracking number. shipd sends them as a single-shot MPS (Ship API
// requestedShipment.oneLabelAtATime false, the default): every package a
// requestedPackageLineItems entry numbered by sequenceNumber, with
// totalPackageCount and the total weight; the answer has a pieceResponse
// per package, each with its tracking number, the master tracking number
// and its label. Cancelling the master with DELETE_ALL_PACKAGES (void.go)
// cancels them all.

// MultiPieceService: every FedEx service shipd sells ships an MPS.
func (c *Carrier) MultiPieceService(service string) bool {
	_, ok := serviceByName(service)
	return ok
}

// pieceItems are the line items of a multi-piece shipment: item (its
// options and references) once per piece with the piece's weight and
// dimensions, numbered from 1; nil for a single parcel.
func pieceItems(item packageLineItem, s carriers.Shipment) []packageLineItem {
	if len(s.Pieces) < 2 {
		return nil
	}
	out := make([]packageLineItem, len(s.Pieces))
	for i, p := range s.Pieces {
		one := parcelLineItem(carriers.Shipment{Parcel: p})
		out[i] = item
		out[i].SequenceNumber = i + 1
		out[i].Weight, out[i].Dimensions = one.Weight, one.Dimensions
	}
	return out
}

// piecesWeight is the total weight of a shipment's pieces.
func piecesWeight(s carriers.Shipment) json.Number {
	var oz float64
	for _, p := range s.AllPieces() {
		oz += p.WeightOz
	}
	return poundsValue(oz)
}

// parsePieces reads an MPS answer: a label per piece asked, in sequence,
// the master's first.
func parsePieces(body []byte, f carriers.LabelFormat, n int) (carriers.Label, error) {
	var r shipResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return carriers.Label{}, malformed(opBuy, "the ship answer does not parse: %v", err)
	}
	if r.Output == nil || len(r.Output.TransactionShipments) == 0 {
		return carriers.Label{}, malformed(opBuy, "the ship answer has no transaction shipment")
	}
	ts := r.Output.TransactionShipments[0]
	if len(ts.PieceResponses) != n {
		return carriers.Label{}, malformed(opBuy, "the ship answer has %d piece responses for %d packages", len(ts.PieceResponses), n)
	}
	master := strings.TrimSpace(ts.MasterTrackingNumber)
	label := carriers.Label{Format: f}
	for _, piece := range ts.PieceResponses {
		tn := strings.TrimSpace(piece.TrackingNumber)
		if tn == "" {
			return carriers.Label{}, malformed(opBuy, "a piece of the ship answer has no tracking number")
		}
		if master == "" {
			master = strings.TrimSpace(piece.MasterTrackingNumber)
		}
		doc, err := pieceDocument(piece, tn, f)
		if err != nil {
			return carriers.Label{}, err
		}
		label.Pieces = append(label.Pieces, tn)
		label.PieceDocuments = append(label.PieceDocuments, doc)
	}
	if master == "" {
		master = label.Pieces[0]
	}
	if i := slices.Index(label.Pieces, master); i > 0 {
		// The master first, as the shipment's tracking number.
		label.Pieces[0], label.Pieces[i] = label.Pieces[i], label.Pieces[0]
		label.PieceDocuments[0], label.PieceDocuments[i] = label.PieceDocuments[i], label.PieceDocuments[0]
	}
	label.TrackingNumber = label.Pieces[0]
	if master != label.TrackingNumber {
		label.CarrierShipmentID = master
	}
	return label, nil
}

// pieceDocument is one piece's label, checked as parseShipDocument checks
// a single label.
func pieceDocument(piece pieceResponse, tn string, f carriers.LabelFormat) ([]byte, error) {
	i := slices.IndexFunc(piece.PackageDocuments, func(d packageDocument) bool {
		return d.ContentType == "" || d.ContentType == "LABEL"
	})
	if i < 0 || strings.TrimSpace(piece.PackageDocuments[i].EncodedLabel) == "" {
		return nil, malformed(opBuy, "the ship answer has no label image for %s", tn)
	}
	d := piece.PackageDocuments[i]
	if want := imageTypeOf(f); d.DocType != "" && d.DocType != want {
		return nil, malformed(opBuy, "the label of %s is %s, not %s", tn, d.DocType, want)
	}
	if err := carriers.CheckLabelBase64(strings.TrimSpace(d.EncodedLabel)); err != nil {
		return nil, malformed(opBuy, "the label of %s: %v", tn, err)
	}
	doc, err := base64.StdEncoding.DecodeString(strings.TrimSpace(d.EncodedLabel))
	if err != nil {
		return nil, malformed(opBuy, "the label of %s is not valid base64: %v", tn, err)
	}
	switch f {
	case carriers.LabelZPL:
		if err := carriers.CheckZPL(doc); err != nil {
			return nil, malformed(opBuy, "the label of %s: %v", tn, err)
		}
	case carriers.LabelPNG:
		return nil, &carriers.Error{Carrier: Name, Operation: opBuy, Message: "a png holds one label, not one per piece", Kind: carriers.ErrRejected}
	default:
		if !bytes.HasPrefix(doc, []byte("%PDF")) {
			return nil, malformed(opBuy, "the label of %s is not a PDF", tn)
		}
	}
	return doc, nil
}

// associatedPath is the Track API's track by associated shipments: the
// child packages of a multi-piece shipment (STANDARD_MPS) by its master.
const associatedPath = "/track/v1/associatedshipments"

// associatedRequest is Full_Schema_Multiple_Piece_Shipment.
type associatedRequest struct {
	IncludeDetailedScans     bool   `json:"includeDetailedScans"`
	AssociatedType           string `json:"associatedType"`
	MasterTrackingNumberInfo struct {
		TrackingNumberInfo struct {
			TrackingNumber string `json:"trackingNumber"`
		} `json:"trackingNumberInfo"`
	} `json:"masterTrackingNumberInfo"`
}

// hasPieces reports whether FedEx says the number's shipment has associated
// shipments (additionalTrackingInfo.hasAssociatedShipments): the master of
// a multi-piece shipment.
func (r trackResponse) hasPieces(trackingNumber string) bool {
	if r.Output == nil {
		return false
	}
	for _, ctr := range r.Output.CompleteTrackResults {
		if ctr.TrackingNumber != trackingNumber || len(ctr.TrackResults) == 0 {
			continue
		}
		a := ctr.TrackResults[0].AdditionalTrackingInfo
		return a != nil && a.HasAssociatedShipments
	}
	return false
}

// withPieces adds the scans of a multi-piece shipment's other packages to
// its master's update, each named by its number, in time order with the
// master's (as UPS answers them): FedEx tracks a master alone, so its
// children are asked for in one more Track API call. That call failing
// leaves the master's update as it is (logged): the next poll asks again.
func (c *Carrier) withPieces(ctx context.Context, master string, up carriers.TrackingUpdate) carriers.TrackingUpdate {
	var req associatedRequest
	req.IncludeDetailedScans, req.AssociatedType = true, "STANDARD_MPS"
	req.MasterTrackingNumberInfo.TrackingNumberInfo.TrackingNumber = master
	body, err := c.do(ctx, request{op: opTrack, method: http.MethodPost, path: associatedPath, body: req})
	var r trackResponse
	if err == nil {
		r, err = decodeTrack(body)
	}
	if err == nil && r.Output == nil {
		err = malformed(opTrack, "the associated shipments answer has no output")
	}
	if err != nil {
		c.log.WarnContext(ctx, "fedex: the packages of a multi-piece shipment could not be tracked",
			slog.String("master", master), slog.Any("error", c.scrub(err)))
		return up
	}
	events := slices.Clone(up.Events)
	for _, ctr := range r.Output.CompleteTrackResults {
		if ctr.TrackingNumber == "" || ctr.TrackingNumber == master {
			continue
		}
		piece, err := r.update(ctr.TrackingNumber, false)
		if err != nil {
			continue // a package FedEx cannot track (yet) adds no scans
		}
		for _, ev := range piece.Events {
			ev.TrackingNumber = ctr.TrackingNumber
			events = append(events, ev)
		}
	}
	slices.SortStableFunc(events, func(a, b carriers.TrackingEvent) int { return a.OccurredAt.Compare(b.OccurredAt) })
	up.Events = events
	return up
}
