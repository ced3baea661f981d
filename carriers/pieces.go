package carriers

// PieceCount is the number of pieces of s: 1 for a single parcel.
func (s Shipment) PieceCount() int { return max(len(s.Pieces), 1) }

// AllPieces is every piece of s: Pieces, or the single Parcel.
func (s Shipment) AllPieces() []Parcel {
	if len(s.Pieces) > 0 {
		return s.Pieces
	}
	return []Parcel{s.Parcel}
}
