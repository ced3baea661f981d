package fedex

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/shipd-dev/shipd/carriers"
)

// referencePath is the Track API's Track by References endpoint: the
// shipments an account sent with a reference (the shipd shipment id is every
// label's CUSTOMER_REFERENCE).
const referencePath = "/track/v1/referencenumbers"

// referenceRequest is the Track by References body
// (Full_Schema_Tracking_References): the reference value and the account
// number, the first of its two documented combinations.
type referenceRequest struct {
	ReferencesInformation referencesInformation `json:"referencesInformation"`
	IncludeDetailedScans  bool                  `json:"includeDetailedScans"`
}

type referencesInformation struct {
	Type          string `json:"type"`
	Value         string `json:"value"`
	AccountNumber string `json:"accountNumber"`
}

// referenceResponse is the part of the answer FindPurchase reads.
type referenceResponse struct {
	Output *struct {
		CompleteTrackResults []struct {
			TrackResults []struct {
				Error              *apiError `json:"error"`
				TrackingNumberInfo *struct {
					TrackingNumber string `json:"trackingNumber"`
				} `json:"trackingNumberInfo"`
				LatestStatusDetail *struct {
					Code        string `json:"code"`
					DerivedCode string `json:"derivedCode"`
				} `json:"latestStatusDetail"`
			} `json:"trackResults"`
		} `json:"completeTrackResults"`
	} `json:"output"`
}

// FindPurchase asks FedEx's Track by References which shipment the account
// sent with the purchase's reference and has not cancelled. FedEx gives no
// label document again (its Ship API has no reprint), so the label found
// has no PDF: the purchase voids it and buys again (shipping/labeljobs/purchase.go).
func (c *Carrier) FindPurchase(ctx context.Context, req carriers.BuyRequest) (carriers.Label, bool, error) {
	ref := strings.TrimSpace(req.Reference)
	if ref == "" {
		return carriers.Label{}, false, nil
	}
	if len(ref) > maxReferenceLen {
		ref = ref[:maxReferenceLen] // as Buy sent it
	}
	body, err := c.do(ctx, request{op: opTrack, method: http.MethodPost, path: referencePath,
		body: referenceRequest{
			ReferencesInformation: referencesInformation{Type: "CUSTOMER_REFERENCE", Value: ref, AccountNumber: c.account},
		}})
	var ce *carriers.Error
	if errors.As(err, &ce) && strings.HasSuffix(ce.Code, "NOTFOUND") {
		return carriers.Label{}, false, nil
	}
	if err != nil {
		return carriers.Label{}, false, c.scrub(err)
	}
	var r referenceResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return carriers.Label{}, false, c.scrub(malformed(opTrack, "the reference answer does not parse: %v", err))
	}
	if r.Output == nil {
		return carriers.Label{}, false, nil
	}
	for _, ctr := range r.Output.CompleteTrackResults {
		for _, tr := range ctr.TrackResults {
			if tr.Error != nil || tr.TrackingNumberInfo == nil || strings.TrimSpace(tr.TrackingNumberInfo.TrackingNumber) == "" {
				continue // FedEx's "not found" for the reference comes as a result's error
			}
			if st := tr.LatestStatusDetail; st != nil && (st.Code == "CA" || st.DerivedCode == "CA") {
				continue // cancelled: voided already, nothing is billed
			}
			return carriers.Label{TrackingNumber: strings.TrimSpace(tr.TrackingNumberInfo.TrackingNumber)}, true, nil
		}
	}
	return carriers.Label{}, false, nil
}
