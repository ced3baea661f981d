// Package spec holds UPS's published OpenAPI documents for the operations
// the ups adapter calls, byte for byte as UPS publishes them at
// github.com/UPS-API/api-documentation (MIT; see NOTICE and LICENSE), so that
// tests and fakes can hold the adapter and upsfake to them with
// carriers/apidoc. The documents are never edited: where one is wrong, the
// work-around is in code and NOTICE says which.
package spec

import (
	"embed"
	"io/fs"
)

//go:embed *.yaml
var documents embed.FS

// FS returns the documents, named as upstream names them.
func FS() fs.FS { return documents }

// Names lists the documents in FS: one per UPS API the adapter calls.
func Names() []string {
	return []string{
		"OAuthClientCredentials.yaml", // POST /security/v1/oauth/token
		"Rating.yaml",                 // POST /api/rating/{version}/{requestoption}
		"Shipping.yaml",               // ship, void, label recovery
		"Tracking.yaml",               // GET /api/track/v1/details/{inquiryNumber}
		"AddressValidation.yaml",      // POST /api/addressvalidation/{version}/{requestoption}
		"Pickup.yaml",                 // pickup creation and cancel
	}
}
