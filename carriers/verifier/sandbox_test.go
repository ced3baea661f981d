package verifier

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// msg builds an expected message; the human-readable text is checked
// separately because it may be reworded.
func msg(code, field string) Message { return Message{Code: code, Field: field} }

var ignoreText = cmpopts.IgnoreFields(Message{}, "Message")

func TestSandboxVerify(t *testing.T) {
	t.Parallel()
	yes := true
	tests := []struct {
		name string
		in   Address
		want Result
	}{
		{
			name: "white house: suffix and post-directional, other fields kept",
			in: Address{
				Name: "  Jane   Doe ", Company: "Executive Office", Street1: "1600 Pennsylvania Avenue Northwest",
				City: "Washington", State: "DC", Zip: "20500", Country: "US",
				Phone: " +1 202 456 1111 ", Email: " jane@example.gov ", Residential: &yes,
			},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address: Address{
					Name: "JANE DOE", Company: "EXECUTIVE OFFICE", Street1: "1600 PENNSYLVANIA AVE NW",
					City: "WASHINGTON", State: "DC", Zip: "20500-9043", Country: "US",
					Phone: "+1 202 456 1111", Email: "jane@example.gov", Residential: &yes,
				},
				Messages: []Message{msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip")},
			},
		},
		{
			name: "empire state building: unit at end of street1 moves to street2",
			in:   Address{Street1: "350 fifth avenue suite 3300", City: "new york", State: "ny", Zip: "10118", Country: "us"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address: Address{Street1: "350 FIFTH AVE", Street2: "STE 3300", City: "NEW YORK", State: "NY", Zip: "10118-4419", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeUnitMoved, "street2"), msg(CodeCityStandardized, "city"),
					msg(CodeStateStandardized, "state"), msg(CodeZip4Added, "zip"), msg(CodeCountryStandardized, "country"),
				},
			},
		},
		{
			name: "empire state building: unit already in street2 gets the same +4",
			in:   Address{Street1: "350 FIFTH AVE", Street2: "Suite 3300", City: "NEW YORK", State: "NY", Zip: "10118", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "350 FIFTH AVE", Street2: "STE 3300", City: "NEW YORK", State: "NY", Zip: "10118-4419", Country: "US"},
				Messages: []Message{msg(CodeStreetStandardized, "street2"), msg(CodeZip4Added, "zip")},
			},
		},
		{
			name: "one infinite loop: LOOP is already standard",
			in:   Address{Street1: "1 infinite loop", City: "Cupertino", State: "CA", Zip: "95014", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "1 INFINITE LOOP", City: "CUPERTINO", State: "CA", Zip: "95014-1644", Country: "US"},
				Messages: []Message{msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip")},
			},
		},
		{
			name: "apple park: full state name is converted with a warning",
			in:   Address{Street1: "1 Apple Park Way", City: "Cupertino", State: "california", Zip: "95014", Country: "US"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address: Address{Street1: "1 APPLE PARK WAY", City: "CUPERTINO", State: "CA", Zip: "95014-8044", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"),
					msg(CodeStateStandardized, "state"), msg(CodeZip4Added, "zip"),
				},
			},
		},
		{
			name: "willis tower: pre-directional, two-word state name",
			in:   Address{Street1: "233 South Wacker Drive", City: "Chicago", State: "Illinois", Zip: "60606", Country: "US"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address: Address{Street1: "233 S WACKER DR", City: "CHICAGO", State: "IL", Zip: "60606-1403", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"),
					msg(CodeStateStandardized, "state"), msg(CodeZip4Added, "zip"),
				},
			},
		},
		{
			name: "po box with periods",
			in:   Address{Street1: "P.O. Box 123", City: "Portland", State: "OR", Zip: "97201", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "PO BOX 123", City: "PORTLAND", State: "OR", Zip: "97201-8083", Country: "US"},
				Messages: []Message{msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip")},
			},
		},
		{
			name: "post office box spelled out with pound sign",
			in:   Address{Street1: "Post Office Box #4521", City: "Anchorage", State: "Alaska", Zip: "99510", Country: "US"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address: Address{Street1: "PO BOX 4521", City: "ANCHORAGE", State: "AK", Zip: "99510-1761", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"),
					msg(CodeStateStandardized, "state"), msg(CodeZip4Added, "zip"),
				},
			},
		},
		{
			name: "post-directional and 9-digit zip",
			in:   Address{Street1: "123 Main Street East", City: "Seattle", State: "WA", Zip: "981011234", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "123 MAIN ST E", City: "SEATTLE", State: "WA", Zip: "98101-1234", Country: "US"},
				Messages: []Message{msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeZipStandardized, "zip")},
			},
		},
		{
			name: "avenue of the americas keeps AVENUE; given zip+4 kept",
			in:   Address{Street1: "1211 Avenue of the Americas", City: "New York", State: "NY", Zip: "10036-8701", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "1211 AVENUE OF THE AMERICAS", City: "NEW YORK", State: "NY", Zip: "10036-8701", Country: "US"},
				Messages: []Message{msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city")},
			},
		},
		{
			name: "already standard address changes only by the +4",
			in:   Address{Street1: "1 MICROSOFT WAY", City: "REDMOND", State: "WA", Zip: "98052", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "1 MICROSOFT WAY", City: "REDMOND", State: "WA", Zip: "98052-5776", Country: "US"},
				Messages: []Message{msg(CodeZip4Added, "zip")},
			},
		},
		{
			name: "whitespace collapsed and trailing period dropped",
			in:   Address{Street1: "  742   Evergreen   Terrace. ", City: " Springfield ", State: " OR ", Zip: " 97477 ", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address: Address{Street1: "742 EVERGREEN TER", City: "SPRINGFIELD", State: "OR", Zip: "97477-3739", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeStateStandardized, "state"),
					msg(CodeZipStandardized, "zip"), msg(CodeZip4Added, "zip"),
				},
			},
		},
		{
			name: "directional street name is not abbreviated",
			in:   Address{Street1: "45 North Street", City: "Pittsfield", State: "MA", Zip: "01201", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "45 NORTH ST", City: "PITTSFIELD", State: "MA", Zip: "01201-8756", Country: "US"},
				Messages: []Message{msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip")},
			},
		},
		{
			name: "park avenue south",
			in:   Address{Street1: "2100 Park Avenue South", City: "Minneapolis", State: "MN", Zip: "55404", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "2100 PARK AVE S", City: "MINNEAPOLIS", State: "MN", Zip: "55404-5105", Country: "US"},
				Messages: []Message{msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip")},
			},
		},
		{
			name: "freeway with post-directional",
			in:   Address{Street1: "4500 Pan American Freeway Northeast", City: "Albuquerque", State: "NM", Zip: "87109", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "4500 PAN AMERICAN FWY NE", City: "ALBUQUERQUE", State: "NM", Zip: "87109-9668", Country: "US"},
				Messages: []Message{msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip")},
			},
		},
		{
			name: "apartment with pound sign and pre-directional moves to street2",
			in:   Address{Street1: "100 North Main St. Apt. #4B", City: "Ann Arbor", State: "MI", Zip: "48104", Country: "US"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address: Address{Street1: "100 N MAIN ST", Street2: "APT 4B", City: "ANN ARBOR", State: "MI", Zip: "48104-6443", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeUnitMoved, "street2"),
					msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip"),
				},
			},
		},
		{
			name: "bare pound-sign unit",
			in:   Address{Street1: "2201 Westlake Ave #300", City: "Seattle", State: "WA", Zip: "98121", Country: "US"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address: Address{Street1: "2201 WESTLAKE AVE", Street2: "# 300", City: "SEATTLE", State: "WA", Zip: "98121-6423", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeUnitMoved, "street2"),
					msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip"),
				},
			},
		},
		{
			name: "unit after a comma; CENTER in suffix position",
			in:   Address{Street1: "1 World Trade Center, Suite 8500", City: "New York", State: "NY", Zip: "10007", Country: "US"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address: Address{Street1: "1 WORLD TRADE CTR", Street2: "STE 8500", City: "NEW YORK", State: "NY", Zip: "10007-2823", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeUnitMoved, "street2"),
					msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip"),
				},
			},
		},
		{
			name: "ordinal floor becomes FL n",
			in:   Address{Street1: "1 Federal Street 3rd Floor", City: "Boston", State: "MA", Zip: "02110", Country: "US"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address: Address{Street1: "1 FEDERAL ST", Street2: "FL 3", City: "BOSTON", State: "MA", Zip: "02110-8434", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeUnitMoved, "street2"),
					msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip"),
				},
			},
		},
		{
			name: "designator without number after the suffix",
			in:   Address{Street1: "77 Massachusetts Avenue Rear", City: "Cambridge", State: "MA", Zip: "02139", Country: "US"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address: Address{Street1: "77 MASSACHUSETTS AVE", Street2: "REAR", City: "CAMBRIDGE", State: "MA", Zip: "02139-0725", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeUnitMoved, "street2"),
					msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip"),
				},
			},
		},
		{
			name: "unit stays in street1 when street2 is taken",
			in:   Address{Street1: "500 Market St Ste 200", Street2: "Attn: Receiving", City: "San Francisco", State: "CA", Zip: "94105", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address: Address{Street1: "500 MARKET ST STE 200", Street2: "ATTN: RECEIVING", City: "SAN FRANCISCO", State: "CA", Zip: "94105-4842", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeStreetStandardized, "street2"),
					msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip"),
				},
			},
		},
		{
			name: "fractional house number",
			in:   Address{Street1: "123 1/2 Elm St", City: "Burlington", State: "VT", Zip: "05401", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "123 1/2 ELM ST", City: "BURLINGTON", State: "VT", Zip: "05401-2654", Country: "US"},
				Messages: []Message{msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip")},
			},
		},
		{
			name: "wisconsin grid house number",
			in:   Address{Street1: "W156N11390 Pilgrim Road", City: "Germantown", State: "WI", Zip: "53022", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "W156N11390 PILGRIM RD", City: "GERMANTOWN", State: "WI", Zip: "53022-7727", Country: "US"},
				Messages: []Message{msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeZip4Added, "zip")},
			},
		},
		{
			name: "puerto rico",
			in:   Address{Street1: "1 Calle Fortaleza", City: "San Juan", State: "Puerto Rico", Zip: "00901", Country: "US"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address: Address{Street1: "1 CALLE FORTALEZA", City: "SAN JUAN", State: "PR", Zip: "00901-3157", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"),
					msg(CodeStateStandardized, "state"), msg(CodeZip4Added, "zip"),
				},
			},
		},
		{
			name: "military PSC box",
			in:   Address{Street1: "PSC 1234 Box 5678", City: "APO", State: "AE", Zip: "09001", Country: "US"},
			want: Result{Status: StatusVerified, Deliverable: true,
				Address:  Address{Street1: "PSC 1234 BOX 5678", City: "APO", State: "AE", Zip: "09001-3729", Country: "US"},
				Messages: []Message{msg(CodeStreetStandardized, "street1"), msg(CodeZip4Added, "zip")},
			},
		},
		{
			name: "missing street number",
			in:   Address{Street1: "Main Street", City: "Austin", State: "TX", Zip: "78701", Country: "US"},
			want: Result{Status: StatusError, Deliverable: false,
				Address: Address{Street1: "MAIN STREET", City: "AUSTIN", State: "TX", Zip: "78701", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeMissingStreetNumber, "street1"), msg(CodeCityStandardized, "city"),
				},
			},
		},
		{
			name: "po box without a number",
			in:   Address{Street1: "PO Box", City: "Dallas", State: "TX", Zip: "75201", Country: "US"},
			want: Result{Status: StatusError, Deliverable: false,
				Address: Address{Street1: "PO BOX", City: "DALLAS", State: "TX", Zip: "75201", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeMissingStreetNumber, "street1"), msg(CodeCityStandardized, "city"),
				},
			},
		},
		{
			name: "zip belongs to another state",
			in:   Address{Street1: "123 Main St", City: "Austin", State: "CA", Zip: "78701", Country: "US"},
			want: Result{Status: StatusError, Deliverable: false,
				Address: Address{Street1: "123 MAIN ST", City: "AUSTIN", State: "CA", Zip: "78701", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeZipStateMismatch, "zip"),
				},
			},
		},
		{
			name: "malformed zip",
			in:   Address{Street1: "1 Infinite Loop", City: "Cupertino", State: "CA", Zip: "9501", Country: "US"},
			want: Result{Status: StatusError, Deliverable: false,
				Address: Address{Street1: "1 INFINITE LOOP", City: "CUPERTINO", State: "CA", Zip: "9501", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeInvalidZip, "zip"),
				},
			},
		},
		{
			name: "unassigned zip prefix",
			in:   Address{Street1: "1 MAIN ST", City: "NOWHERE", State: "NY", Zip: "00012", Country: "US"},
			want: Result{Status: StatusError, Deliverable: false,
				Address:  Address{Street1: "1 MAIN ST", City: "NOWHERE", State: "NY", Zip: "00012", Country: "US"},
				Messages: []Message{msg(CodeInvalidZip, "zip")},
			},
		},
		{
			name: "unknown state",
			in:   Address{Street1: "1 Main St", City: "Springfield", State: "Freedonia", Zip: "62701", Country: "US"},
			want: Result{Status: StatusError, Deliverable: false,
				Address: Address{Street1: "1 MAIN ST", City: "SPRINGFIELD", State: "FREEDONIA", Zip: "62701", Country: "US"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeCityStandardized, "city"), msg(CodeInvalidState, "state"),
				},
			},
		},
		{
			name: "every missing field is reported at once",
			in:   Address{Street1: " ", Country: "US"},
			want: Result{Status: StatusError, Deliverable: false,
				Address: Address{Country: "US"},
				Messages: []Message{
					msg(CodeMissingStreet, "street1"), msg(CodeMissingCity, "city"),
					msg(CodeInvalidState, "state"), msg(CodeInvalidZip, "zip"),
				},
			},
		},
		{
			name: "international address is tidied, not verified",
			in:   Address{Name: "Prime Minister", Street1: "10 Downing  Street", City: "London", Zip: "SW1A 2AA", Country: "gb"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address: Address{Name: "Prime Minister", Street1: "10 Downing Street", City: "London", Zip: "SW1A 2AA", Country: "GB"},
				Messages: []Message{
					msg(CodeStreetStandardized, "street1"), msg(CodeCountryStandardized, "country"),
					msg(CodeNotVerifiedInternational, "country"),
				},
			},
		},
		{
			name: "international address keeps its own case and format",
			in:   Address{Street1: "Unter den Linden 77", City: "Berlin", Zip: "10117", Country: "DE"},
			want: Result{Status: StatusWarning, Deliverable: true,
				Address:  Address{Street1: "Unter den Linden 77", City: "Berlin", Zip: "10117", Country: "DE"},
				Messages: []Message{msg(CodeNotVerifiedInternational, "country")},
			},
		},
		{
			name: "three-letter country is echoed unchanged",
			in:   Address{Street1: "1 infinite loop", City: "Cupertino", State: "CA", Zip: "95014", Country: "USA"},
			want: Result{Status: StatusError, Deliverable: false,
				Address:  Address{Street1: "1 infinite loop", City: "Cupertino", State: "CA", Zip: "95014", Country: "USA"},
				Messages: []Message{msg(CodeInvalidCountry, "country")},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := NewSandbox().Verify(t.Context(), tt.in)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, ignoreText); diff != "" {
				t.Errorf("Verify(%+v) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestSandboxTriggers(t *testing.T) {
	t.Parallel()
	wantTriggers := []Trigger{
		{Field: "street1", Value: "Verifier Down", Effect: "verifier_unavailable"},
		{Field: "street1", Value: "Verifier Error", Effect: "verifier_error"},
	}
	if diff := cmp.Diff(wantTriggers, Triggers()); diff != "" {
		t.Errorf("Triggers() mismatch (-want +got):\n%s", diff)
	}

	tests := []struct {
		street1 string
		want    error
	}{
		{TriggerVerifierDown, ErrUnavailable},
		{"  verifier   DOWN ", ErrUnavailable},
		{TriggerVerifierError, ErrFailed},
		{"VERIFIER ERROR", ErrFailed},
	}
	for _, tt := range tests {
		t.Run(tt.street1, func(t *testing.T) {
			t.Parallel()
			// The rest of the address is invalid on purpose: triggers win
			// over validation so error handling can be tested with any
			// address.
			got, err := NewSandbox().Verify(t.Context(), Address{Street1: tt.street1, Country: "XYZ"})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify(street1=%q) error = %v, want one wrapping %v", tt.street1, err, tt.want)
			}
			if diff := cmp.Diff(Result{}, got); diff != "" {
				t.Errorf("Verify(street1=%q) returned a result with its error (-want +got):\n%s", tt.street1, diff)
			}
		})
	}

	t.Run("a street merely containing the words is an address", func(t *testing.T) {
		t.Parallel()
		got, err := NewSandbox().Verify(t.Context(), Address{
			Street1: "12 Verifier Down Rd", City: "Austin", State: "TX", Zip: "78701", Country: "US",
		})
		if err != nil || got.Status != StatusVerified {
			t.Errorf("Verify = (status %q, %v), want verified without error", got.Status, err)
		}
	})
}

func TestSandboxZip4IsDeterministic(t *testing.T) {
	t.Parallel()
	addr := Address{Street1: "1 Infinite Loop", City: "Cupertino", State: "CA", Zip: "95014", Country: "US"}
	first, err := NewSandbox().Verify(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, err := (&Sandbox{}).Verify(t.Context(), addr)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(first, again); diff != "" {
			t.Fatalf("second verification differs (-first +again):\n%s", diff)
		}
	}

	// Re-verifying the standardised address must be a fixed point apart
	// from messages, and differently typed forms of one address must
	// converge on one +4.
	refed, err := NewSandbox().Verify(t.Context(), first.Address)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first.Address, refed.Address); diff != "" {
		t.Errorf("re-verifying the result changed it (-first +again):\n%s", diff)
	}
	if len(refed.Messages) != 0 || refed.Status != StatusVerified {
		t.Errorf("re-verifying the result: status %q, messages %+v; want verified without messages", refed.Status, refed.Messages)
	}
	typed, err := NewSandbox().Verify(t.Context(), Address{
		Street1: " 1  INFINITE LOOP. ", City: "cupertino", State: "California", Zip: "95014", Country: "us",
	})
	if err != nil {
		t.Fatal(err)
	}
	if typed.Address.Zip != first.Address.Zip {
		t.Errorf("zip for another spelling = %q, want %q", typed.Address.Zip, first.Address.Zip)
	}

	other, err := NewSandbox().Verify(t.Context(), Address{
		Street1: "2 Infinite Loop", City: "Cupertino", State: "CA", Zip: "95014", Country: "US",
	})
	if err != nil {
		t.Fatal(err)
	}
	if other.Address.Zip == first.Address.Zip {
		t.Errorf("2 and 1 Infinite Loop share the +4 %q; the hash should tell them apart", first.Address.Zip)
	}
}

func TestSandboxPlus4Range(t *testing.T) {
	t.Parallel()
	for i := range 2000 {
		got := sandboxPlus4(strings.Repeat("1", i%7)+" MAIN ST", "", "10001")
		if len(got) != 4 || !isDigits(got) || got == "0000" {
			t.Fatalf("sandboxPlus4 #%d = %q, want four digits other than 0000", i, got)
		}
	}
}

func TestSandboxMessageText(t *testing.T) {
	t.Parallel()
	got, err := NewSandbox().Verify(t.Context(), Address{
		Street1: "350 fifth avenue suite 3300", City: "New York", State: "new york", Zip: "10118", Country: "US",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Message{
		{CodeStreetStandardized, "street1", `street1 standardized: "350 fifth avenue suite 3300" -> "350 FIFTH AVE STE 3300"`},
		{CodeUnitMoved, "street2", `unit "STE 3300" moved from street1 to street2`},
		{CodeCityStandardized, "city", `city standardized: "New York" -> "NEW YORK"`},
		{CodeStateStandardized, "state", `state name "new york" converted to "NY"`},
		{CodeZip4Added, "zip", "ZIP+4 added: 10118-4419"},
	}
	if diff := cmp.Diff(want, got.Messages); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
}

func TestSandboxState(t *testing.T) {
	t.Parallel()
	// Re-casing a code is formatting; converting a name is an inference.
	tests := []struct {
		state, zip, wantState, wantStatus string
	}{
		{"ca", "95014", "CA", StatusVerified},
		{"C.A.", "95014", "CA", StatusVerified},
		{"California", "95014", "CA", StatusWarning},
		{"district of columbia", "20500", "DC", StatusWarning},
		{"U.S. Virgin Islands", "00802", "VI", StatusWarning},
		{"Armed Forces Pacific", "96201", "AP", StatusWarning},
		{"GU", "96910", "GU", StatusVerified},
		{"AS", "96799", "AS", StatusVerified},
		{"MP", "96950", "MP", StatusVerified},
		{"TX", "73301", "TX", StatusVerified},
		{"TX", "88510", "TX", StatusVerified},
		{"NY", "00501", "NY", StatusVerified},
		{"NY", "06390", "NY", StatusVerified},
		{"MA", "05501", "MA", StatusVerified},
		{"VA", "20101", "VA", StatusVerified},
		{"DC", "56901", "DC", StatusVerified},
		{"OK", "73301", "OK", StatusError},
		{"FL", "34002", "FL", StatusError},
		{"VT", "05501", "VT", StatusError},
		{"Cali", "95014", "CALI", StatusError},
	}
	for _, tt := range tests {
		t.Run(tt.state+" "+tt.zip, func(t *testing.T) {
			t.Parallel()
			got, err := NewSandbox().Verify(t.Context(), Address{
				Street1: "1 MAIN ST", City: "ANYTOWN", State: tt.state, Zip: tt.zip, Country: "US",
			})
			if err != nil {
				t.Fatal(err)
			}
			if got.Address.State != tt.wantState || got.Status != tt.wantStatus {
				t.Errorf("state %q zip %s: got state %q status %q (%+v), want %q %q",
					tt.state, tt.zip, got.Address.State, got.Status, got.Messages, tt.wantState, tt.wantStatus)
			}
		})
	}
}

func TestSandboxDoesNotAliasInput(t *testing.T) {
	t.Parallel()
	residential := true
	got, err := NewSandbox().Verify(t.Context(), Address{
		Street1: "1 MAIN ST", City: "ANYTOWN", State: "NY", Zip: "10001", Country: "US", Residential: &residential,
	})
	if err != nil {
		t.Fatal(err)
	}
	residential = false
	if got.Address.Residential == nil || !*got.Address.Residential {
		t.Errorf("Result.Address.Residential follows the caller's variable; want an independent copy of true")
	}
}

func TestSandboxHonoursContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := NewSandbox().Verify(ctx, Address{Street1: "1 MAIN ST", Country: "US"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Verify with a cancelled context: error = %v, want context.Canceled", err)
	}
}
