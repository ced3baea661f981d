// Package spec holds DPD's published OpenAPI documents of its META-API,
// byte for byte as karrio vendors them (see NOTICE), so that tests and
// dpdfake can hold the adapter and the fake to them with carriers/apidoc.
// The documents are never edited: where one is wrong, the work-around is in
// code and NOTICE says which.
//
// DPD publishes two: meta-api-docs.json, the META-API's whole shipping
// service (login, shipment, label, pickup scheduling, collection request),
// and openapi_metaapi_shipping.yaml, the shipment operation alone as the
// META-API customer documentation (v1.2) describes it, with the field
// lengths and patterns the other leaves out. A request of the shipment
// operation is held to both.
package spec

import (
	"embed"
	"errors"
	"io/fs"
	"net/http"
	"sync"

	"github.com/shipd-dev/shipd/carriers/apidoc"
)

//go:embed *.json *.yaml
var documents embed.FS

// FS returns the documents, named as upstream names them.
func FS() fs.FS { return documents }

// Names lists the documents in FS.
func Names() []string {
	return []string{
		"meta-api-docs.json",            // login, shipment, label, pickup scheduling
		"openapi_metaapi_shipping.yaml", // shipment, with the customer documentation's lengths
	}
}

// Exceptions are where DPD's documents are wrong or stricter than what DPD
// exchanges. Each is narrow: one document, one operation, one place, one
// reason.
func Exceptions() []apidoc.Exception {
	return []apidoc.Exception{
		// The login's security names "ApiKeyAuth", which the document's
		// securitySchemes do not declare (only bearerAuth): the login's
		// credentials are its X-DPD-* header parameters.
		{Document: "meta-api-docs.json", Path: "/shipping/v1/login", In: "body",
			Reason: `security requirements failed: security scheme "ApiKeyAuth" is not declared`},
		// openapi_metaapi_shipping.yaml's 400 is an array of Error,
		// meta-api-docs.json's (the newer, 2.30.48) one Error: dpdfake
		// answers the newer, the adapter reads both.
		{Document: "openapi_metaapi_shipping.yaml", Path: "/shipping/v1/shipment", In: "body", Reason: "value must be an array"},
	}
}

// Documents are both documents with their Exceptions: every exchange is
// checked against meta-api-docs.json, and one of an operation
// openapi_metaapi_shipping.yaml has (the shipment) against it too.
type Documents struct {
	meta, shipping *apidoc.Excused
	documentedOnly bool
}

// CheckRequest checks a request against both documents.
func (d *Documents) CheckRequest(r *http.Request, body []byte) error {
	return errors.Join(d.metaSet().CheckRequest(r, body), d.shipping.CheckRequest(r, body))
}

// CheckResponse checks an answer against both documents.
func (d *Documents) CheckResponse(r *http.Request, status int, header http.Header, body []byte) error {
	return errors.Join(d.metaSet().CheckResponse(r, status, header, body), d.shipping.CheckResponse(r, status, header, body))
}

// CheckRequestBody checks a request body alone (a golden file) against both
// documents.
func (d *Documents) CheckRequestBody(method, path, contentType string, body []byte) error {
	err := d.shipping.CheckRequestBody(method, path, contentType, body)
	if errors.Is(err, apidoc.ErrUndocumented) {
		err = nil
	}
	return errors.Join(d.meta.CheckRequestBody(method, path, contentType, body), err)
}

// DocumentedOnly is d passing the exchanges of operations no document has
// (checked by hand instead), as apidoc.Excused.DocumentedOnly.
func (d *Documents) DocumentedOnly() *Documents {
	return &Documents{meta: d.meta, shipping: d.shipping, documentedOnly: true}
}

func (d *Documents) metaSet() *apidoc.Excused {
	if d.documentedOnly {
		return d.meta.DocumentedOnly()
	}
	return d.meta
}

// checker is the documents loaded once per process.
var checker = sync.OnceValues(func() (*Documents, error) {
	meta, err := apidoc.Load(FS(), "meta-api-docs.json")
	if err != nil {
		return nil, err
	}
	shipping, err := apidoc.Load(FS(), "openapi_metaapi_shipping.yaml")
	if err != nil {
		return nil, err
	}
	// The shipment document covers one operation: the others are
	// meta-api-docs.json's alone.
	return &Documents{meta: meta.Excusing(Exceptions()...), shipping: shipping.Excusing(Exceptions()...).DocumentedOnly()}, nil
})

// Checker is the documents with their Exceptions: what the fake and the
// adapter's tests check every exchange against.
func Checker() (*Documents, error) { return checker() }
