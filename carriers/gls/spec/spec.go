// Package spec holds GLS's published OpenAPI documents for the APIs the gls
// adapter calls, byte for byte as karrio vendors them (see NOTICE), so that
// tests and glsfake can hold the adapter and the fake to them with
// carriers/apidoc. The documents are never edited: where one is wrong, the
// work-around is in code and NOTICE says which.
package spec

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/shipd-dev/shipd/carriers/apidoc"
)

//go:embed *.yaml
var documents embed.FS

// FS returns the documents, named as upstream names them.
func FS() fs.FS { return documents }

// Names lists the documents in FS: one per GLS API the adapter calls.
func Names() []string {
	return []string{
		"authentification-service-v2.yaml", // POST /oauth2/v2/token
		"shipit-farm.yaml",                 // ShipIT: shipments, cancel, end of day, allowed services, collection, parcel lookup, reprint
		"ecitrackandtrace.yaml",            // Track And Trace V1: GET /track-and-trace-v1/tracking/simple/trackids/{unitnos}
	}
}

// Exceptions are where GLS's documents are stricter than what GLS
// exchanges. Each is narrow: one document, one operation, one place, one
// reason.
func Exceptions() []apidoc.Exception {
	out := []apidoc.Exception{
		// The token request's grant_type has an enum and no type: read as
		// a form field without a type, "client_credentials" is not the
		// enum's string.
		{Document: "authentification-service-v2.yaml", Path: "/token", In: "body", Pointer: "/grant_type",
			Reason: "value is not one of the allowed values"},
	}
	// shipit-farm.yaml's security names a scheme "OAuthPROD" where its
	// securitySchemes declare "OAuth" (and "OAuthSandbox"): every
	// operation's security requirement is unresolvable. Each operation the
	// adapter calls is excused of it alone.
	for _, path := range []string{"/rs/shipments", "/rs/shipments/allowedservices", "/rs/shipments/cancel/{trackID}",
		"/rs/shipments/reprintparcel", "/rs/shipments/endofday", "/rs/tracking/parcels", "/rs/sporadiccollection"} {
		out = append(out, apidoc.Exception{Document: "shipit-farm.yaml", Path: path, In: "body",
			Reason: `security requirements failed: security scheme "OAuthPROD" is not declared`},
			// ShipIT documents only its success answer ("default", with a
			// JSON body); GLS answers an error with the "error" and
			// "message" headers and an empty body, without a
			// Content-Type.
			apidoc.Exception{Document: "shipit-farm.yaml", Path: path, In: "header", Name: "Content-Type",
				Reason: "response header Content-Type has unexpected value"})
	}
	return out
}

// checker is the documents loaded once per process.
var checker = sync.OnceValues(func() (*apidoc.Excused, error) {
	set, err := apidoc.Load(FS(), Names()...)
	if err != nil {
		return nil, err
	}
	return set.Excusing(Exceptions()...), nil
})

// Checker is the documents with their Exceptions: what the fake and the
// adapter's tests check every exchange against.
func Checker() (*apidoc.Excused, error) { return checker() }
