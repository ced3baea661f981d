package ups

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// Multi-piece shipments: UPS ships up to 200 packages under one shipment
// (Shipping.yaml ShipmentRequest/Shipment/Package, an array of at most
// 200), rated together (Rating: NumOfPieces and a Package each), sold with
// a tracking number and a label per package in PackageResults, the first
// package's number being the ShipmentIdentificationNumber that voids them
// all (void.go).

// MultiPieceService: every UPS service shipd sells ships several packages.
func (c *Carrier) MultiPieceService(service string) bool {
	_, ok := serviceByName(service)
	return ok
}

// ratePieces puts every piece of a multi-piece shipment in a rate request:
// a Package each, with the options the first was given, their count and
// their total weight.
func ratePieces(sh *rateShipment, s carriers.Shipment) {
	if len(s.Pieces) < 2 {
		return
	}
	first := sh.Package[0]
	sh.Package = make([]ratePackage, len(s.Pieces))
	var oz float64
	for i, p := range s.Pieces {
		sh.Package[i] = first
		sh.Package[i].Dimensions, sh.Package[i].PackageWeight = packageDimensions(p), packageWeight(p)
		oz += p.WeightOz
	}
	total := packageWeight(carriers.Parcel{WeightOz: oz})
	sh.NumOfPieces, sh.ShipmentTotalWeight = strconv.Itoa(len(s.Pieces)), &total
}

// shipPackages are the Package array of a ship request: pkg for a single
// parcel; for several, pkg's options and references on each piece, with the
// piece's own weight and dimensions.
func shipPackages(pkg shipPackage, s carriers.Shipment) []shipPackage {
	if len(s.Pieces) < 2 {
		return []shipPackage{pkg}
	}
	out := make([]shipPackage, len(s.Pieces))
	for i, p := range s.Pieces {
		out[i] = pkg
		out[i].Dimensions, out[i].PackageWeight = packageDimensions(p), packageWeight(p)
	}
	return out
}

// pieceResult is one package of a ship answer: its number and label.
type pieceResult struct {
	trackingNumber string
	image          []byte
	imageFormat    string
}

// piecesLabel is the label of a multi-piece purchase: a PDF page or a ZPL
// label per package, in the order of the request; the answer must carry a
// package per piece asked.
func (c *Carrier) piecesLabel(ctx context.Context, status int, f carriers.LabelFormat, size carriers.LabelSize, res shipResult, n int) (carriers.Label, error) {
	if len(res.pieces) != n {
		return carriers.Label{}, malformed(opBuy, status, "the ship answer has %d PackageResults for %d packages", len(res.pieces), n)
	}
	label := carriers.Label{TrackingNumber: res.trackingNumber}
	for _, p := range res.pieces {
		label.Pieces = append(label.Pieces, p.trackingNumber)
	}
	switch f {
	case carriers.LabelZPL:
		for _, p := range res.pieces {
			if p.imageFormat != labelZPL {
				return carriers.Label{}, malformed(opBuy, status, "the label of %s is %q, not the ZPL asked for", p.trackingNumber, p.imageFormat)
			}
			if err := carriers.CheckZPL(p.image); err != nil {
				return carriers.Label{}, malformed(opBuy, status, "%v", err)
			}
			label.Document = append(label.Document, p.image...)
		}
		label.Format = carriers.LabelZPL
	case carriers.LabelPNG:
		return carriers.Label{}, &carriers.Error{Carrier: carrierName, Operation: opBuy,
			Message: fmt.Sprintf("a png holds one label, not %d", n), Kind: carriers.ErrRejected}
	default:
		imgs := make([][]byte, n)
		infos := make([]carriers.LabelImage, n)
		var cost int64
		for i, p := range res.pieces {
			if p.imageFormat == labelZPL {
				return carriers.Label{}, malformed(opBuy, status, "the label of %s is ZPL, not the GIF asked for", p.trackingNumber)
			}
			info, err := carriers.CheckLabelImage(p.image, "gif", "png")
			if err != nil {
				return carriers.Label{}, malformed(opBuy, status, "%v", err)
			}
			imgs[i], infos[i] = p.image, info
			cost = max(cost, info.Cost())
		}
		// The images are decoded one at a time, each page keeping only its
		// compressed PNG: the share is the largest image's.
		release, err := c.cfg.LabelMemory.Acquire(ctx, cost)
		if err != nil {
			if ctx.Err() != nil {
				return carriers.Label{}, err
			}
			return carriers.Label{}, malformed(opBuy, status, "the carrier's label images: %v", err)
		}
		defer release()
		pdf, err := convertLabelsOn(imgs, infos, c.cfg.Now(), res.trackingNumber, size)
		if err != nil {
			return carriers.Label{}, malformed(opBuy, status, "label image: %v", err)
		}
		label.Document, label.Format = pdf, carriers.LabelPDF
	}
	return label, nil
}

// pieceEvents are the scans of every package of a track answer but the one
// asked about (asked), each named by its package's tracking number: the
// tracker follows the master, and shows its pieces' scans beside its own.
// The caller sorts them with the master's, oldest first.
func pieceEvents(all []*trackPackage, asked *trackPackage) ([]carriers.TrackingEvent, error) {
	var out []carriers.TrackingEvent
	for _, p := range all {
		tn := strings.ToUpper(strings.TrimSpace(p.TrackingNumber))
		if p == asked || tn == "" || strings.EqualFold(tn, strings.TrimSpace(asked.TrackingNumber)) {
			continue
		}
		evs, err := packageEvents(p, tn)
		if err != nil {
			return nil, fmt.Errorf("package %s: %w", carriers.Excerpt(tn), err)
		}
		out = append(out, evs...)
	}
	return out, nil
}
