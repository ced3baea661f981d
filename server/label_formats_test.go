package server_test

import (
	"bytes"
	"image"
	_ "image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLabelFormats buys a label in each format and size through the API and
// reads its document back: the shipment reports the format and size, the
// labelUrl names the format's document, which is served with its media
// type, and every other format's URL is 409 label_format_mismatch naming
// the one the label has.
func TestLabelFormats(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	for _, tc := range []struct {
		format, size string // as sent; "" sends none
		wantFormat   string
		wantSize     string
		contentType  string
		check        func(t *testing.T, doc []byte, tracking string)
	}{
		{"", "", "pdf", "4x6", "application/pdf", func(t *testing.T, doc []byte, _ string) {
			if !bytes.HasPrefix(doc, []byte("%PDF-")) || !bytes.Contains(doc, []byte("/MediaBox [0 0 288.00 432.00]")) {
				t.Errorf("not a 4x6 PDF: %.200q", doc)
			}
		}},
		{"pdf", "letter", "pdf", "letter", "application/pdf", func(t *testing.T, doc []byte, _ string) {
			if !bytes.HasPrefix(doc, []byte("%PDF-")) || !bytes.Contains(doc, []byte("/MediaBox [0 0 612.00 792.00]")) {
				t.Errorf("not a letter PDF (612x792 pt): %.200q", doc)
			}
		}},
		{"png", "", "png", "4x6", "image/png", func(t *testing.T, doc []byte, _ string) {
			img, format, err := image.Decode(bytes.NewReader(doc))
			if err != nil {
				t.Fatal(err)
			}
			if format != "png" || img.Bounds().Dx() != 812 || img.Bounds().Dy() != 1218 {
				t.Errorf("a %s of %v, want a png of 812x1218", format, img.Bounds())
			}
		}},
		{"zpl", "4x6", "zpl", "4x6", "application/zpl", func(t *testing.T, doc []byte, tracking string) {
			z := strings.TrimSpace(string(doc))
			if !strings.HasPrefix(z, "^XA") || !strings.HasSuffix(z, "^XZ") || !strings.Contains(z, "^BC") ||
				!strings.Contains(z, "^FD"+tracking+"^FS") || !strings.Contains(z, "^PW812") || !strings.Contains(z, "^LL1218") {
				t.Errorf("not a 4x6 ZPL label with a ^BC barcode of %s:\n%s", tracking, z)
			}
		}},
	} {
		t.Run(tc.wantFormat+"-"+tc.wantSize, func(t *testing.T) {
			t.Parallel()
			c := createLabel(t, b, b.token, labelBody(func(m map[string]any) {
				if tc.format != "" {
					m["labelFormat"] = tc.format
				}
				if tc.size != "" {
					m["labelSize"] = tc.size
				}
			}))
			created := b.doT(t, "GET", "/api/v1/labels/"+c.ID, b.token, nil).JSON(t)
			if diff := cmp.Diff([2]any{tc.wantFormat, tc.wantSize}, [2]any{created["labelFormat"], created["labelSize"]}); diff != "" {
				t.Errorf("labelFormat, labelSize (-want +got):\n%s", diff)
			}
			s := waitForStatus(t, b, b.token, c.ID, "purchased")
			if u := s.str(s.LabelURL); !strings.HasSuffix(u, "/api/v1/labels/"+s.ID+"/label."+tc.wantFormat) {
				t.Errorf("labelUrl = %q, want it to end with label.%s", u, tc.wantFormat)
			}
			r := b.doT(t, "GET", "/api/v1/labels/"+s.ID+"/label."+tc.wantFormat, b.token, nil)
			wantStatus(t, r, http.StatusOK)
			if got := r.Header.Get("Content-Type"); got != tc.contentType {
				t.Errorf("Content-Type = %q, want %q", got, tc.contentType)
			}
			tc.check(t, r.Body, s.str(s.TrackingNumber))
			for _, other := range []string{"pdf", "png", "zpl"} {
				if other == tc.wantFormat {
					continue
				}
				r := b.doT(t, "GET", "/api/v1/labels/"+s.ID+"/label."+other, b.token, nil)
				m := wantError(t, r, http.StatusConflict, "label_format_mismatch")
				if m["labelFormat"] != tc.wantFormat || m["labelUrl"] != s.str(s.LabelURL) {
					t.Errorf("label.%s of a %s label: labelFormat %v, labelUrl %v; want %s, %s", other, tc.wantFormat, m["labelFormat"], m["labelUrl"], tc.wantFormat, s.str(s.LabelURL))
				}
			}
		})
	}
}

// TestLabelFormatsRefused: a letter page is a PDF's; other formats and
// sizes are not in the contract's enums.
func TestLabelFormatsRefused(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	for _, body := range []map[string]any{
		labelBody(func(m map[string]any) { m["labelFormat"], m["labelSize"] = "png", "letter" }),
		labelBody(func(m map[string]any) { m["labelFormat"], m["labelSize"] = "zpl", "letter" }),
	} {
		r := b.do("POST", "/api/v1/labels/create", b.token, body)
		m := wantError(t, r, http.StatusUnprocessableEntity, "invalid_field")
		if m["field"] != "labelSize" {
			t.Errorf("field = %v, want labelSize; %s", m["field"], r.Body)
		}
	}
	for _, body := range []map[string]any{
		labelBody(func(m map[string]any) { m["labelFormat"] = "gif" }),
		labelBody(func(m map[string]any) { m["labelSize"] = "4x8" }),
	} {
		r := b.do("POST", "/api/v1/labels/create", b.token, body)
		if r.Status != http.StatusUnprocessableEntity && r.Status != http.StatusBadRequest {
			t.Errorf("%v: status %d, want 422 or 400; %s", body, r.Status, r.Body)
		}
	}
}

// TestLiveLabelFormats buys ZPL and PNG labels from each live carrier (the
// fakes) through the API: each carrier is asked for the format and the
// document served is that format.
func TestLiveLabelFormats(t *testing.T) {
	t.Parallel()
	b, _, live := setupLive(t, unscanned)
	services := map[string]string{}
	for _, r := range quoteRates(t, b, live, liveBody()) {
		if services[r.Carrier] == "" {
			services[r.Carrier] = r.Service
		}
	}
	for _, carrier := range []string{"UPS", "FedEx", "USPS"} {
		for _, format := range []string{"zpl", "png"} {
			t.Run(carrier+"-"+format, func(t *testing.T) {
				t.Parallel()
				c := createLabel(t, b, live, liveBody(func(m map[string]any) {
					m["carrier"], m["service"], m["labelFormat"] = carrier, services[carrier], format
				}))
				s := waitForStatus(t, b, live, c.ID, "purchased")
				r := b.doT(t, "GET", "/api/v1/labels/"+s.ID+"/label."+format, live, nil)
				wantStatus(t, r, http.StatusOK)
				switch format {
				case "zpl":
					z := strings.TrimSpace(string(r.Body))
					if r.Header.Get("Content-Type") != "application/zpl" || !strings.HasPrefix(z, "^XA") || !strings.HasSuffix(z, "^XZ") || !strings.Contains(z, s.str(s.TrackingNumber)) {
						t.Errorf("%s: not the carrier's ZPL label of %s (%s):\n%.300s", carrier, s.str(s.TrackingNumber), r.Header.Get("Content-Type"), z)
					}
				case "png":
					if _, kind, err := image.DecodeConfig(bytes.NewReader(r.Body)); err != nil || kind != "png" || r.Header.Get("Content-Type") != "image/png" {
						t.Errorf("%s: not a PNG: %s %v (%s)", carrier, kind, err, r.Header.Get("Content-Type"))
					}
				}
			})
		}
	}
}
