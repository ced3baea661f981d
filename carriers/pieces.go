package carriers

// MultiPiecer is a carrier that ships several pieces under one shipment
// (UPS, FedEx: one master tracking number and a label per piece).
// MultiPieceService says whether its service can. A shipment with Pieces is
// quoted only by MultiPiecers, and only their services that can, since a
// carrier that cannot would price and buy its first box alone.
type MultiPiecer interface {
	MultiPieceService(service string) bool
}

// CanShipPieces reports whether c can sell service for a multi-piece
// shipment, through the wrappers, which are all MultiPiecers answering for
// the carrier they wrap.
func CanShipPieces(c Carrier, service string) bool {
	m, ok := c.(MultiPiecer)
	return ok && m.MultiPieceService(service)
}

// MultiPieceService answers for the wrapped carrier.
func (w *wrapped) MultiPieceService(service string) bool { return CanShipPieces(w.c, service) }

// MultiPieceService answers for the batching carrier's own.
func (b *batched) MultiPieceService(service string) bool {
	return CanShipPieces(b.batchCarrier, service)
}

// PieceCount is the number of pieces of s: 1 for a single parcel.
func (s Shipment) PieceCount() int { return max(len(s.Pieces), 1) }

// AllPieces is every piece of s: Pieces, or the single Parcel.
func (s Shipment) AllPieces() []Parcel {
	if len(s.Pieces) > 0 {
		return s.Pieces
	}
	return []Parcel{s.Parcel}
}
