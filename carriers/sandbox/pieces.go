package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// MultiPieceService: the sandbox's UPS and FedEx ship several pieces under
// one shipment, as the live ones do; its USPS does not (USPS sells no
// multi-piece shipment: each box is its own label).
func (c *carrier) MultiPieceService(string) bool { return c.t.Capabilities.Has(carriers.CapMultiPiece) }

// piecesCents prices every piece of s with svc in zone z, each piece with
// its surcharges as UPS and FedEx charge them (per package); a refusal
// naming the limit when a piece is too heavy or too large for the service.
func (c *carrier) piecesCents(s carriers.Shipment, svc service, z int) (int64, *carriers.LimitRefusal) {
	var cents int64
	for _, p := range s.AllPieces() {
		oz := c.billableOz(p)
		m := carriers.MetricOf(p)
		longest := max(m.LengthCm, m.WidthCm, m.HeightCm)
		if svc.MaxWeightOz > 0 && oz > svc.MaxWeightOz || svc.MaxLengthCm > 0 && longest > svc.MaxLengthCm {
			return 0, &carriers.LimitRefusal{Service: svc.Name, MaxWeightOz: svc.MaxWeightOz, MaxLengthCm: svc.MaxLengthCm,
				WeightOz: oz, LengthCm: longest, Billable: oz > p.WeightOz}
		}
		cents += price(svc, oz, z)
		if s.Options.SignatureConfirmation {
			cents += c.t.SignatureCents
		}
		if s.To.Residential {
			cents += c.t.ResidentialCents
		}
	}
	return cents, nil
}

// pieceMark is what a multi-piece label prints in its band: which box of
// how many, as carriers print it.
func pieceMark(in LabelInput) string { return fmt.Sprintf("PACKAGE %d OF %d", in.Piece, in.Pieces) }

// pieceNumbers are the tracking numbers of a shipment's n pieces: the
// master first, the others derived from it, so that the tracking plan,
// which has only the master, knows them too.
func (c *carrier) pieceNumbers(master string, n int) []string {
	out := []string{master}
	for i := 2; i <= n; i++ {
		sum := sha256.Sum256([]byte(c.name + "\x00" + master + "\x00" + strconv.Itoa(i)))
		a := binary.BigEndian.Uint64(sum[0:8]) % 1e10
		b := binary.BigEndian.Uint64(sum[8:16]) % 1e10
		out = append(out, c.t.TrackingPrefix+fmt.Sprintf("%010d%010d", a, b)[:c.t.TrackingDigits])
	}
	return out
}

// piecesLabel is the label document of a multi-piece shipment: a label per
// piece, each with its own tracking number and weight and "PACKAGE i OF n",
// on a PDF page each or as one ZPL label each. in is the master's label.
func (c *carrier) piecesLabel(req carriers.BuyRequest, in LabelInput) (carriers.Label, error) {
	pieces := req.Shipment.Pieces
	numbers := c.pieceNumbers(in.TrackingNumber, len(pieces))
	ins := make([]LabelInput, len(pieces))
	for i, p := range pieces {
		ins[i] = in
		ins[i].TrackingNumber, ins[i].WeightOz = numbers[i], p.WeightOz
		ins[i].Piece, ins[i].Pieces = i+1, len(pieces)
	}
	var doc []byte
	switch req.Format() {
	case carriers.LabelPDF:
		var err error
		if doc, err = renderPDF(ins); err != nil {
			return carriers.Label{}, fmt.Errorf("sandbox: %s: rendering label: %w", c.name, err)
		}
		return carriers.Label{TrackingNumber: numbers[0], Document: doc, Format: carriers.LabelPDF, Pieces: numbers}, nil
	case carriers.LabelZPL:
		// A ZPL document of several ^XA..^XZ formats prints a label each.
		for _, in := range ins {
			z, err := RenderZPL(in)
			if err != nil {
				return carriers.Label{}, fmt.Errorf("sandbox: %s: rendering label: %w", c.name, err)
			}
			doc = append(doc, z...)
		}
		return carriers.Label{TrackingNumber: numbers[0], Document: doc, Format: carriers.LabelZPL, Pieces: numbers}, nil
	}
	return carriers.Label{}, fmt.Errorf("sandbox: %s: a %s document holds one label, not %d: %w", c.name, req.Format(), len(pieces), carriers.ErrRejected)
}

// piecesPlan adds to a multi-piece shipment's plan each other piece's own
// arrival scan, after the master's departure: the tracker follows the
// master, and a piece's scans name it.
func (c *carrier) piecesPlan(plan []carriers.TrackingScan, s carriers.Shipment, master string) []carriers.TrackingScan {
	if len(s.Pieces) < 2 || len(plan) < 2 {
		return plan
	}
	numbers := c.pieceNumbers(master, len(s.Pieces))
	out := append([]carriers.TrackingScan(nil), plan[:2]...)
	for i, n := range numbers[1:] {
		out = append(out, carriers.TrackingScan{Status: carriers.StatusInTransit, TrackingNumber: n, After: c.cfg.ScanInterval,
			Message: fmt.Sprintf("Package %d of %d departed origin facility", i+2, len(numbers)), Location: plan[1].Location})
	}
	return append(out, plan[2:]...)
}

// checkPieces refuses the void of pieces that are not the master's, as a
// carrier voids a multi-piece shipment whole or not at all.
func (c *carrier) checkPieces(req carriers.VoidRequest) error {
	if len(req.Pieces) == 0 {
		return nil
	}
	want := c.pieceNumbers(req.TrackingNumber, len(req.Pieces))
	for i, n := range req.Pieces {
		if !strings.EqualFold(strings.TrimSpace(n), want[i]) {
			return fmt.Errorf("sandbox: %s cannot void piece %q: not a piece of shipment %s: %w", c.name, n, req.TrackingNumber, carriers.ErrRejected)
		}
	}
	return nil
}
