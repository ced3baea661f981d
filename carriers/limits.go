package carriers

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Codes of a carrier's refusal of a parcel past its limits (Error.Code,
// kind ErrRejected), for a carrier every service of which refused the
// parcel. Carriers' own codes are free strings; these are shipd's, and the
// contract lists them (CarrierError.code).
const (
	// CodeParcelTooHeavy: heavier than the carrier's heaviest parcel (its
	// billable weight, where the carrier prices by dimensional weight).
	CodeParcelTooHeavy = "parcel_too_heavy"
	// CodeParcelTooLarge: a side longer than the carrier's longest.
	CodeParcelTooLarge = "parcel_too_large"
	// CodeParcelOverLimits: each service refused the parcel on a limit of
	// its own (one on weight, another on size), none on all of them.
	CodeParcelOverLimits = "parcel_over_limits"
)

// IsLimitCode reports whether code is one of a refusal past a carrier's
// limits (CodeParcelTooHeavy, CodeParcelTooLarge, CodeParcelOverLimits).
func IsLimitCode(code string) bool {
	switch code {
	case CodeParcelTooHeavy, CodeParcelTooLarge, CodeParcelOverLimits:
		return true
	}
	return false
}

// LimitRefusal is one service's refusal of a parcel past its limits: the
// service's limits (0: none) and the parcel's figures against them.
type LimitRefusal struct {
	Service string
	// MaxWeightOz and MaxLengthCm are the service's heaviest parcel and
	// longest side.
	MaxWeightOz, MaxLengthCm float64
	// WeightOz is the parcel's weight as the service weighs it, LengthCm
	// its longest side; Billable: WeightOz is the billable weight
	// (BillableWeightOz), which a dimensional weight made larger than what
	// the parcel weighs.
	WeightOz, LengthCm float64
	Billable           bool
}

// heavy reports whether the service refused on weight (else on size).
func (r LimitRefusal) heavy() bool { return r.MaxWeightOz > 0 && r.WeightOz > r.MaxWeightOz }

// LimitsError is the answer of carrier to operation ("rate", "buy") when
// every service it has for the shipment refused the parcel past a limit:
// kind ErrRejected and a message naming the carrier's most generous limit
// the parcel is past (no service of the carrier takes more), in the
// parcel's own units (metric when it was given in centimetres and grams),
// the other system's in parentheses. Its code is CodeParcelTooHeavy or
// CodeParcelTooLarge; CodeParcelOverLimits, naming each service's limit,
// when no one limit explains the refusals (a small service too light, a
// big one too short). nil without refusals.
func LimitsError(carrier, operation string, metric bool, refusals []LimitRefusal) *Error {
	if len(refusals) == 0 {
		return nil
	}
	// The carrier's most generous limits (+Inf where a service has none),
	// and the parcel's figures against them.
	most := LimitRefusal{}
	var heaviest, longest float64
	for i, r := range refusals {
		w, l := r.MaxWeightOz, r.MaxLengthCm
		if w <= 0 {
			w = math.Inf(1)
		}
		if l <= 0 {
			l = math.Inf(1)
		}
		if i == 0 {
			heaviest, longest = w, l
		}
		heaviest, longest = math.Max(heaviest, w), math.Max(longest, l)
		most.WeightOz, most.LengthCm = math.Max(most.WeightOz, r.WeightOz), math.Max(most.LengthCm, r.LengthCm)
		most.Billable = most.Billable || r.Billable
	}
	e := &Error{Carrier: carrier, Operation: operation, Kind: ErrRejected}
	tooHeavy, tooLarge := most.WeightOz > heaviest, most.LengthCm > longest
	switch {
	case tooHeavy && tooLarge:
		e.Code = CodeParcelTooHeavy
		e.Message = weightPhrase(heaviest, most, metric) + "; and " + sizePhrase(longest, most, metric)
	case tooHeavy:
		e.Code, e.Message = CodeParcelTooHeavy, weightPhrase(heaviest, most, metric)
	case tooLarge:
		e.Code, e.Message = CodeParcelTooLarge, sizePhrase(longest, most, metric)
	default:
		parts := make([]string, len(refusals))
		for i, r := range refusals {
			if r.heavy() {
				parts[i] = r.Service + " " + weightPhrase(r.MaxWeightOz, r, metric)
			} else {
				parts[i] = r.Service + " " + sizePhrase(r.MaxLengthCm, r, metric)
			}
		}
		e.Code, e.Message = CodeParcelOverLimits, "no service takes this parcel: "+strings.Join(parts, "; ")
	}
	return e
}

// weightPhrase and sizePhrase say a limit and what the parcel has against it.
func weightPhrase(limitOz float64, r LimitRefusal, metric bool) string {
	what := "weighs"
	if r.Billable {
		what = "has a billable weight (the larger of its weight and its dimensional weight) of"
	}
	return fmt.Sprintf("takes at most %s a parcel; this one %s %s", FormatWeight(limitOz, metric), what, FormatWeight(r.WeightOz, metric))
}

func sizePhrase(limitCm float64, r LimitRefusal, metric bool) string {
	return fmt.Sprintf("takes at most %s on a parcel's longest side; this one's is %s", FormatLength(limitCm, metric), FormatLength(r.LengthCm, metric))
}

// FormatWeight writes oz in the units of the parcel's system, the other
// system's in parentheses: "70 lb (31.75 kg)", "31.75 kg (70 lb)"; a
// weight under a pound or a kilogram in ounces or grams.
func FormatWeight(oz float64, metric bool) string {
	imperial := decimal(oz/16, 2) + " lb"
	if oz < 16 {
		imperial = decimal(oz, 2) + " oz"
	}
	g := oz * GramsPerOunce
	si := decimal(g/1000, 2) + " kg"
	if g < 1000 {
		si = decimal(g, 0) + " g"
	}
	if metric {
		return si + " (" + imperial + ")"
	}
	return imperial + " (" + si + ")"
}

// FormatLength writes cm as FormatWeight writes a weight: "120 cm (47.24 in)".
func FormatLength(cm float64, metric bool) string {
	si, imperial := decimal(cm, 2)+" cm", decimal(cm/CmPerInch, 2)+" in"
	if metric {
		return si + " (" + imperial + ")"
	}
	return imperial + " (" + si + ")"
}

// decimal writes v with at most places decimals, without trailing zeros.
func decimal(v float64, places int) string {
	s := strconv.FormatFloat(v, 'f', places, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
