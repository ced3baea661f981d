package carriers

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shipd-dev/shipd/exchangerates"
)

// A RateSheet is a shipper's contract prices for a carrier, as a CSV table
// of weight brackets:
//
//	service,destination,maxWeightG,price,currency
//	Paket,DE,5000,5.49,EUR
//	Paket,*,31500,19.90,EUR
//
// service is shipd's service name or the carrier's product code; destination
// an ISO country code, or * for every country without rows of its own that
// hold the weight; maxWeightG a bracket's upper weight in grams; price a
// decimal in currency (at most its minor unit's decimals). It prices the
// carriers that have no rating API (Descriptor.RatesFromSheet), and
// overrides a rating API's prices where a shipper's negotiated ones differ.
type RateSheet struct {
	rows []sheetRow
}

type sheetRow struct {
	service, destination string
	maxGrams             int
	minor                int64 // price in the currency's minor unit
	currency             string
}

// Limits of a rate sheet.
const (
	MaxRateSheetRows  = 10000
	MaxRateSheetBytes = 2 << 20
	maxSheetGrams     = 1_000_000
	maxSheetService   = 64
)

// RateSheetHeader is a rate sheet's fixed header line, as forms show it.
const RateSheetHeader = "service,destination,maxWeightG,price,currency"

// rateSheetHeader is the fixed header line's fields.
var rateSheetHeader = strings.Split(RateSheetHeader, ",")

// RateSheetError is the first thing wrong with a rate sheet: where (line
// and column, both from 1; column 0 for a whole line) and what.
type RateSheetError struct {
	Line, Column int
	Message      string
}

func (e *RateSheetError) Error() string {
	if e.Column == 0 {
		return fmt.Sprintf("rate sheet line %d: %s", e.Line, e.Message)
	}
	return fmt.Sprintf("rate sheet line %d, column %d (%s): %s", e.Line, e.Column, rateSheetHeader[e.Column-1], e.Message)
}

// ParseRateSheet reads a rate sheet, refusing it whole at its first error
// (*RateSheetError): a header other than the fixed one, a row of another
// number of fields, a field out of its form or not UTF-8, more than
// MaxRateSheetRows rows or MaxRateSheetBytes bytes, no row at all. A
// leading byte-order mark is skipped: spreadsheets write one ("CSV UTF-8").
func ParseRateSheet(r io.Reader) (*RateSheet, error) {
	lr := &io.LimitedReader{R: r, N: MaxRateSheetBytes + 1}
	br := bufio.NewReader(lr)
	if bom, _ := br.Peek(3); string(bom) == "\uFEFF" {
		_, _ = br.Discard(3)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	sheet := &RateSheet{}
	for first := true; ; first = false {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if lr.N <= 0 {
			return nil, &RateSheetError{Line: lineOf(cr), Message: fmt.Sprintf("the sheet exceeds %d bytes", MaxRateSheetBytes)}
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &RateSheetError{Line: pe.Line, Message: "not CSV: " + pe.Err.Error()}
			}
			return nil, err
		}
		line := lineOf(cr)
		if first {
			if !slices.EqualFunc(trimmed(rec), rateSheetHeader, strings.EqualFold) {
				return nil, &RateSheetError{Line: line, Message: "the header must be " + strings.Join(rateSheetHeader, ",")}
			}
			continue
		}
		if len(rec) != len(rateSheetHeader) {
			return nil, &RateSheetError{Line: line, Message: fmt.Sprintf("%d fields, want %d (%s)", len(rec), len(rateSheetHeader), strings.Join(rateSheetHeader, ","))}
		}
		if i := slices.IndexFunc(rec, func(f string) bool { return !utf8.ValidString(f) }); i >= 0 {
			return nil, &RateSheetError{Line: line, Column: i + 1, Message: "is not UTF-8 text"}
		}
		if len(sheet.rows) == MaxRateSheetRows {
			return nil, &RateSheetError{Line: line, Message: fmt.Sprintf("more than %d rows", MaxRateSheetRows)}
		}
		row, col, msg := parseSheetRow(trimmed(rec))
		if msg != "" {
			return nil, &RateSheetError{Line: line, Column: col, Message: msg}
		}
		sheet.rows = append(sheet.rows, row)
	}
	if len(sheet.rows) == 0 {
		return nil, &RateSheetError{Line: 1, Message: "no rows: the header, then a row per weight bracket"}
	}
	return sheet, nil
}

func lineOf(cr *csv.Reader) int {
	line, _ := cr.FieldPos(0)
	return line
}

func trimmed(rec []string) []string {
	out := make([]string, len(rec))
	for i, f := range rec {
		out[i] = strings.TrimSpace(f)
	}
	return out
}

// parseSheetRow reads one row, or says which column is wrong and how.
func parseSheetRow(f []string) (sheetRow, int, string) {
	var row sheetRow
	switch {
	case f[0] == "":
		return row, 1, "must be a service name or product code"
	case len(f[0]) > maxSheetService:
		return row, 1, fmt.Sprintf("must be at most %d characters", maxSheetService)
	case strings.ContainsFunc(f[0], func(r rune) bool { return r < ' ' || r == 0x7f }):
		return row, 1, "must not hold control characters"
	}
	row.service = f[0]
	dest := strings.ToUpper(f[1])
	if dest != "*" && (len(dest) != 2 || strings.Trim(dest, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "") {
		return row, 2, "must be an ISO 3166 country code (DE) or *"
	}
	row.destination = dest
	g, err := strconv.Atoi(f[2])
	if err != nil || g <= 0 || g > maxSheetGrams {
		return row, 3, fmt.Sprintf("must be a whole number of grams from 1 to %d", maxSheetGrams)
	}
	row.maxGrams = g
	cur := strings.ToUpper(f[4])
	if !exchangerates.IsCode(cur) {
		return row, 5, "must be an ISO 4217 currency code (EUR)"
	}
	row.currency = cur
	minor, ok := minorUnits(f[3], exchangerates.MinorUnits(cur))
	if !ok {
		return row, 4, fmt.Sprintf("must be a decimal of at most %d decimals, 0 or more, below 1,000,000", exchangerates.MinorUnits(cur))
	}
	row.minor = minor
	return row, 0, ""
}

// minorUnits reads a decimal price ("5.49") as minor units (549) when it has
// at most decimals decimals and is below a million.
func minorUnits(s string, decimals int) (int64, bool) {
	if s == "" || strings.ContainsAny(s, "eE+-_") {
		return 0, false
	}
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > decimals || whole == "" && frac == "" {
		return 0, false
	}
	v, ok := new(big.Rat).SetString(s)
	if !ok || v.Cmp(big.NewRat(1_000_000, 1)) >= 0 {
		return 0, false
	}
	v.Mul(v, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)))
	if !v.IsInt() {
		return 0, false
	}
	return v.Num().Int64(), true
}

// Rows is the number of the sheet's rows.
func (s *RateSheet) Rows() int { return len(s.rows) }

// Price is what the sheet charges for one parcel of grams to country by a
// service named service or productCode: among the rows of that service, the
// destination's own rows when one holds the weight, else the * rows; the
// cheapest of those that hold it. ok is false when none does.
func (s *RateSheet) Price(service, productCode, country string, grams int) (minor int64, currency string, ok bool) {
	country = NormalizeCountry(country)
	for _, dest := range []string{country, "*"} {
		for _, r := range s.rows {
			if r.destination != dest || r.maxGrams < grams || !(strings.EqualFold(r.service, service) || productCode != "" && strings.EqualFold(r.service, productCode)) {
				continue
			}
			if !ok || r.minor < minor {
				minor, currency, ok = r.minor, r.currency, true
			}
		}
		if ok {
			return minor, currency, true
		}
	}
	return 0, "", false
}

// Prices is what the sheet charges for a shipment's parcels: the sum of
// each piece's price (all in one currency), or ok false when a piece has no
// row or the pieces' rows differ in currency.
func (s *RateSheet) Prices(service, productCode, country string, pieces []int) (minor int64, currency string, ok bool) {
	for i, g := range pieces {
		m, cur, found := s.Price(service, productCode, country, g)
		if !found || i > 0 && cur != currency {
			return 0, "", false
		}
		minor, currency = minor+m, cur
	}
	return minor, currency, len(pieces) > 0
}

// Priced is c priced by sheet when there is one or when d's carrier has
// no rating API (an unpriced rate is then refused with where a sheet is
// set: where), else c itself.
func (d Descriptor) Priced(c Carrier, sheet *RateSheet, where string) Carrier {
	if sheet == nil && !d.RatesFromSheet {
		return c
	}
	return WithRateSheet(c, sheet, fmt.Sprintf("%s has no rating API: its prices are your contract's, from a rate sheet, and none is set (%s)", d.DisplayName, where))
}

// WithRateSheet prices c's rates from sheet: a rate of a service the sheet
// prices for the shipment takes the sheet's price; a rate the carrier left
// unpriced (Rate.Unpriced: no rating API) and the sheet does not price is
// dropped; when that leaves nothing, Rates is an ErrRejected naming what is
// missing (noSheet when sheet is nil: where a sheet is set). The other
// operations are c's.
func WithRateSheet(c Carrier, sheet *RateSheet, noSheet string) Carrier {
	return &sheetPriced{Carrier: c, sheet: sheet, noSheet: noSheet}
}

type sheetPriced struct {
	Carrier
	sheet   *RateSheet
	noSheet string
}

func (p *sheetPriced) Rates(ctx context.Context, s Shipment) ([]Rate, error) {
	rates, err := p.Carrier.Rates(ctx, s)
	if err != nil {
		return nil, err
	}
	pieces := pieceGrams(s)
	out := rates[:0:0]
	var unpriced []string
	for _, r := range rates {
		if p.sheet != nil {
			if minor, cur, ok := p.sheet.Prices(r.Service, r.ProductCode, s.To.Country, pieces); ok {
				r.CarrierRateCents, r.Currency, r.Unpriced, r.DutiesCents = minor, cur, false, 0
			}
		}
		if r.Unpriced {
			unpriced = append(unpriced, r.Service)
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 && len(unpriced) > 0 {
		msg := p.noSheet
		if p.sheet != nil {
			msg = fmt.Sprintf("the rate sheet prices none of %s for %s at %s", strings.Join(unpriced, ", "),
				NormalizeCountry(s.To.Country), gramsText(pieces))
		}
		return nil, &Error{Carrier: p.Name(), Operation: "rate", Kind: ErrRejected, Message: msg}
	}
	return out, nil
}

// pieceGrams is each parcel's weight in whole grams, rounded up.
func pieceGrams(s Shipment) []int {
	parcels := s.Pieces
	if len(parcels) == 0 {
		parcels = []Parcel{s.Parcel}
	}
	out := make([]int, len(parcels))
	for i, p := range parcels {
		out[i] = int(math.Ceil(MetricOf(p).WeightG - 1e-9))
	}
	return out
}

func gramsText(pieces []int) string {
	parts := make([]string, len(pieces))
	for i, g := range pieces {
		parts[i] = strconv.Itoa(g) + " g"
	}
	return strings.Join(parts, " + ")
}
