// Package spec holds DHL Express's published OpenAPI document of the MyDHL
// API 3.1.1, byte for byte as vendored by the karrio project (see NOTICE),
// so that tests and the fake can hold the dhlexpress adapter and
// dhlexpressfake to it with carriers/apidoc. The document is never edited:
// where it is wrong, the work-around is in code or in Exceptions, and
// NOTICE says which.
//
// The document is 1.2 MB of YAML; only tests and the fake import this
// package, so it never reaches the shipd binary.
package spec

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/shipd-dev/shipd/carriers/apidoc"
)

//go:embed *.yaml
var documents embed.FS

// Document is the MyDHL API document's file name, as upstream names it.
const Document = "dpdhl-express-api-3.1.1_swagger.yaml"

// FS returns the document.
func FS() fs.FS { return documents }

// Names lists the documents in FS: the one MyDHL API document, whose
// operations the adapter calls are POST /rates, POST /landed-cost, POST
// /shipments, GET /tracking, GET /shipments/{n}/tracking, POST /pickups,
// DELETE /pickups/{n} and GET /address-validate.
func Names() []string { return []string{Document} }

// Exceptions are where the document is wrong or stricter than what DHL
// exchanges and the adapter and dhlexpressfake were built for. Each is
// narrow: one operation, one place, one reason.
func Exceptions() []apidoc.Exception {
	// MyDHL authenticates every call with HTTP Basic and answers wrong
	// credentials 401 Unauthorized, on every operation; the document lists
	// no 401 (nor any answer to a call without credentials) for any of
	// them. The fake answers 401 as DHL does.
	var out []apidoc.Exception
	for _, path := range []string{"/rates", "/landed-cost", "/shipments", "/tracking",
		"/shipments/{shipmentTrackingNumber}/tracking", "/pickups", "/pickups/{dispatchConfirmationNumber}", "/address-validate"} {
		out = append(out, apidoc.Exception{Document: Document, Path: path, In: "status",
			Reason: "the status is not documented for this operation"})
	}
	return out
}

// checker is the document loaded once per process: parsing 1.2 MB of YAML
// takes a good part of a second, and it never changes.
var checker = sync.OnceValues(func() (*apidoc.Excused, error) {
	set, err := apidoc.Load(FS(), Names()...)
	if err != nil {
		return nil, err
	}
	return set.Excusing(Exceptions()...), nil
})

// Checker is the document with its Exceptions: what the fake and the
// adapter's tests check every exchange against.
func Checker() (*apidoc.Excused, error) { return checker() }
