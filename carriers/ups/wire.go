package ups

import (
	"bytes"
	"encoding/json"
)

// oneOrMany decodes a JSON array or a single object as a slice. The UPS
// OpenAPI documents say that for API versions before v2403/v2409 an element
// that may repeat "will be returned as an array if there is more than one
// object and a single object if there is only 1"; accepting both keeps the
// adapter working whichever shape arrives.
type oneOrMany[T any] []T

func (o *oneOrMany[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*o = nil
		return nil
	case len(b) > 0 && b[0] == '[':
		var many []T
		if err := json.Unmarshal(b, &many); err != nil {
			return err
		}
		*o = many
		return nil
	default:
		var one T
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*o = oneOrMany[T]{one}
		return nil
	}
}

// indicator is a UPS "presence indicator": the element's presence means
// true, whatever its value (UPS sends "" or "Y"). On the way out it is sent
// as "Y"; a nil *indicator is left out.
type indicator struct{}

func (indicator) MarshalJSON() ([]byte, error) { return []byte(`"Y"`), nil }

// present reports whether a raw JSON member was sent (null counts as absent).
func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

func presence(on bool) *indicator {
	if !on {
		return nil
	}
	return &indicator{}
}

// codeDesc is the UPS {Code, Description} pair used for services, units,
// packaging types and statuses.
type codeDesc struct {
	Code        string `json:"Code"`
	Description string `json:"Description,omitempty"`
}

// address is the UPS request address (Rating and Shipping share it).
type address struct {
	AddressLine       []string   `json:"AddressLine"`
	City              string     `json:"City,omitempty"`
	StateProvinceCode string     `json:"StateProvinceCode,omitempty"`
	PostalCode        string     `json:"PostalCode,omitempty"`
	CountryCode       string     `json:"CountryCode"`
	Residential       *indicator `json:"ResidentialAddressIndicator,omitempty"`
}

type phone struct {
	Number string `json:"Number"`
}

type weight struct {
	UnitOfMeasurement codeDesc `json:"UnitOfMeasurement"`
	Weight            string   `json:"Weight"`
}

type dimensions struct {
	UnitOfMeasurement codeDesc `json:"UnitOfMeasurement"`
	Length            string   `json:"Length"`
	Width             string   `json:"Width"`
	Height            string   `json:"Height"`
}

type money struct {
	CurrencyCode  string `json:"CurrencyCode"`
	MonetaryValue string `json:"MonetaryValue"`
}

type transactionReference struct {
	CustomerContext string `json:"CustomerContext,omitempty"`
}

type deliveryConfirmation struct {
	DCISType string `json:"DCISType"`
}

type shipmentCharge struct {
	Type        string       `json:"Type"`
	BillShipper *billShipper `json:"BillShipper,omitempty"`
}

type billShipper struct {
	AccountNumber string `json:"AccountNumber"`
}

type referenceNumber struct {
	Value string `json:"Value"`
}

// responseStatus is the Response container every UPS success answer has.
type responseStatus struct {
	ResponseStatus struct {
		Code        string `json:"Code"`
		Description string `json:"Description"`
	} `json:"ResponseStatus"`
	Alert oneOrMany[codeDesc] `json:"Alert"`
}
