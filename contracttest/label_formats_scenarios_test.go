package contracttest

import (
	"bytes"
	"fmt"
	"image"
	_ "image/png" // decodes the PNG label
	"strings"
)

// labelFormatScenarios: label.png and label.zpl, as label.pdf, and the
// 409 label_format_mismatch of each document operation.
func labelFormatScenarios() []Scenario {
	purchasedIn := func(e *Env, tok, format string) map[string]any {
		sh := e.CreateShipment(tok, With(Shipment("Ada Lovelace"), "labelFormat", format))
		return e.WaitStatus(tok, ID(sh), "purchased")
	}
	var out []Scenario
	for _, f := range []struct{ format, op string }{{"png", "getLabelPNG"}, {"zpl", "getLabelZPL"}} {
		out = append(out,
			Scenario{Name: "the " + f.format + " label document", Op: f.op, Status: 200,
				Request: func(e *Env) Request {
					tok := e.Token("test")
					return Request{Token: tok, Params: map[string]string{"id": ID(purchasedIn(e, tok, f.format))}}
				},
				Check: func(x *Exchange) error {
					if f.format == "zpl" {
						if z := strings.TrimSpace(string(x.Body)); !strings.HasPrefix(z, "^XA") || !strings.HasSuffix(z, "^XZ") {
							return fmt.Errorf("the body is not a ZPL label ^XA … ^XZ: %q", truncate(x.Body, 20))
						}
						return nil
					}
					cfg, _, err := image.DecodeConfig(bytes.NewReader(x.Body))
					if err != nil || cfg.Width != 812 || cfg.Height != 1218 {
						return fmt.Errorf("the body is not an 812x1218 PNG (%v): %q", err, truncate(x.Body, 20))
					}
					return nil
				}},
			Scenario{Name: "Slow Carrier still paying", Op: f.op, Status: 202, Code: "label_pending",
				Request: func(e *Env) Request {
					tok := e.Token("test")
					sh := e.CreateShipment(tok, With(Shipment("Slow Carrier"), "labelFormat", f.format))
					return Request{Token: tok, Params: map[string]string{"id": ID(sh)}}
				},
				Check: wantHeaders("Retry-After")},
			Scenario{Name: "test shipment with a live token", Op: f.op, Status: 403, Code: "wrong_mode",
				Request: func(e *Env) Request {
					sh := purchasedIn(e, e.Token("test"), f.format)
					return Request{Token: e.Token("live"), Params: map[string]string{"id": ID(sh)}}
				}},
			Scenario{Name: "no such shipment", Op: f.op, Status: 404, Code: "not_found",
				Request: func(e *Env) Request { return Request{Token: e.Token("test"), Params: dummyParams} }},
			Scenario{Name: "a PDF label", Op: f.op, Status: 409, Code: "label_format_mismatch",
				Request: func(e *Env) Request {
					tok := e.Token("test")
					return Request{Token: tok, Params: map[string]string{"id": ID(e.Purchased(tok))}}
				}},
		)
	}
	out = append(out, Scenario{Name: "a ZPL label", Op: "getLabelPDF", Status: 409, Code: "label_format_mismatch",
		Request: func(e *Env) Request {
			tok := e.Token("test")
			return Request{Token: tok, Params: map[string]string{"id": ID(purchasedIn(e, tok, "zpl"))}}
		}},
		Scenario{Name: "letter with png", Op: "createLabel", Status: 422, Code: "invalid_field",
			Request: func(e *Env) Request {
				body := With(With(Shipment("Ada Lovelace"), "labelFormat", "png"), "labelSize", "letter")
				return Request{Token: e.Token("test"), Body: body}
			}})
	return out
}
