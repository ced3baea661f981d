package usps

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shipd-dev/shipd/carriers"
	"github.com/shipd-dev/shipd/carriers/usps/uspsfake"
)

var labelOut = flag.String("label-out", "", "write the PDF of the label bought by TestBuyDomestic to this file, to look at it")

func buyRequest(ref, service string, s carriers.Shipment) carriers.BuyRequest {
	return carriers.BuyRequest{Reference: ref, Shipment: s, Rate: carriers.Rate{Carrier: "USPS", Service: service}}
}

func TestBuyDomestic(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	label, err := c.Buy(context.Background(), buyRequest("shp_0123456789abcdef01234567", "Priority", domesticShipment()))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^92055\d{17}$`).MatchString(label.TrackingNumber) {
		t.Errorf("tracking number %q is not a 22-digit IMpb number", label.TrackingNumber)
	}
	// USPS voids by tracking number: there is no other id to keep.
	if label.CarrierShipmentID != "" {
		t.Errorf("CarrierShipmentID = %q, want empty", label.CarrierShipmentID)
	}
	if !bytes.HasPrefix(label.Document, []byte("%PDF")) {
		t.Errorf("label does not start with %%PDF: %q", label.Document[:min(len(label.Document), 16)])
	}
	if fake.Requests(uspsfake.OpPayment) != 1 {
		t.Errorf("payment authorizations = %d, want 1", fake.Requests(uspsfake.OpPayment))
	}
	if *labelOut != "" {
		if err := os.WriteFile(*labelOut, label.Document, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBuyInternational(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	label, err := c.Buy(context.Background(), buyRequest("shp_intl", "PriorityMailInternational", internationalShipment()))
	if err != nil {
		t.Fatal(err)
	}
	if !internationalTracking.MatchString(label.TrackingNumber) || !bytes.HasPrefix(label.Document, []byte("%PDF")) {
		t.Errorf("label %q, PDF %q...: want an S10 number and a PDF", label.TrackingNumber, label.Document[:min(len(label.Document), 8)])
	}
}

// TestBuyIsIdempotent: a purchase retried with the same shipd reference
// (after a timeout, a crash) gets the first label back, never a second one.
func TestBuyIsIdempotent(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	ctx := context.Background()
	first, err := c.Buy(ctx, buyRequest("shp_same", "GroundAdvantage", domesticShipment()))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	labels := make([]carriers.Label, 5)
	for i := range labels {
		wg.Go(func() {
			l, err := c.Buy(ctx, buyRequest("shp_same", "GroundAdvantage", domesticShipment()))
			if err != nil {
				t.Error(err)
			}
			labels[i] = l
		})
	}
	wg.Wait()
	for _, l := range labels {
		if diff := cmp.Diff(first, l); diff != "" {
			t.Errorf("retried purchase differs from the first (-first +retry):\n%s", diff)
		}
	}
	if n := fake.LabelCount(); n != 1 {
		t.Fatalf("USPS sold %d labels for one reference, want 1", n)
	}
	other, err := c.Buy(ctx, buyRequest("shp_other", "GroundAdvantage", domesticShipment()))
	if err != nil {
		t.Fatal(err)
	}
	if other.TrackingNumber == first.TrackingNumber || fake.LabelCount() != 2 {
		t.Errorf("a second shipment got %s (first %s), %d labels sold; want a new label", other.TrackingNumber, first.TrackingNumber, fake.LabelCount())
	}
}

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	a, b := idempotencyKey("shp_1"), idempotencyKey("shp_2")
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if !uuid.MatchString(a) || a != idempotencyKey("shp_1") || a == b {
		t.Errorf("keys %q %q: want stable, distinct, UUID-shaped", a, b)
	}
}

func TestBuyRefusals(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	ctx := context.Background()

	tooValuable := internationalShipment()
	tooValuable.Customs.Items[0].ValueCents = 250001 // the whole line: over $2,500 under 6109.10
	noCustoms := internationalShipment()
	noCustoms.Customs = nil
	badState := domesticShipment()
	badState.To.State = "XX"
	noSender := domesticShipment() // carriers/requirements.go: USPS needs a name or a firm
	noSender.From.Name, noSender.From.Company = "", ""

	for _, tc := range []struct {
		name string
		req  carriers.BuyRequest
		kind error
	}{
		{"unknown service", buyRequest("shp_a", "MediaMail", domesticShipment()), carriers.ErrRejected},
		{"international service to the US", buyRequest("shp_b", "PriorityMailInternational", domesticShipment()), carriers.ErrRejected},
		{"domestic service abroad", buyRequest("shp_c", "Priority", internationalShipment()), carriers.ErrRejected},
		{"no customs", buyRequest("shp_d", "PriorityMailInternational", noCustoms), carriers.ErrCustomsRequired},
		{"needs an AES filing", buyRequest("shp_e", "PriorityMailInternational", tooValuable), carriers.ErrRejected},
		{"no reference", buyRequest("", "Priority", domesticShipment()), carriers.ErrInvalidShipment},
		{"no sender name", buyRequest("shp_f", "Priority", noSender), carriers.ErrRejected},
	} {
		if _, err := c.Buy(ctx, tc.req); !errors.Is(err, tc.kind) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.kind)
		}
	}
	if n := fake.Requests(uspsfake.OpLabel) + fake.Requests(uspsfake.OpInternationalLabel); n != 0 {
		t.Errorf("%d label requests reached USPS for purchases refused locally", n)
	}

	// USPS's own validation: its 400 is a rejection carrying its message.
	_, err := c.Buy(ctx, buyRequest("shp_f", "Priority", badState))
	ce := asCarrierError(t, err)
	if !errors.Is(err, carriers.ErrRejected) || ce.HTTPStatus != http.StatusBadRequest || ce.Code != "400000" ||
		!strings.Contains(ce.Message, `state "XX"`) {
		t.Errorf("bad state: %#v, want a rejection with USPS's code and message", ce)
	}
}

// TestBuyDecodesMultipart asks the fake for the default multipart answer
// (Accept: application/json) and decodes it the way Buy would.
func TestBuyDecodesMultipart(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	c := newCarrier(t, fake)
	req := buyRequest("shp_multi", "GroundAdvantage", domesticShipment())
	a, err := c.send(context.Background(), request{op: opBuy, method: http.MethodPost, path: labelPath, payment: true,
		accept: "application/json", header: map[string]string{"X-Idempotency-Key": idempotencyKey(req.Reference)},
		body: c.domesticLabelRequest(req, services[0])})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a.header.Get("Content-Type"), "multipart/") {
		t.Fatalf("the fake answered %q, want multipart", a.header.Get("Content-Type"))
	}
	label, err := parseLabel(a.header.Get("Content-Type"), a.body)
	if err != nil {
		t.Fatal(err)
	}
	if label.TrackingNumber == "" || !bytes.HasPrefix(label.Document, []byte("%PDF")) {
		t.Errorf("multipart label %q with %d bytes of PDF", label.TrackingNumber, len(label.Document))
	}
}

func multipartBody(t *testing.T, parts ...[3]string) (contentType string, body []byte) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{"Content-Type": {p[0]}}
		if p[1] != "" {
			h.Set("Content-Disposition", `form-data; name="`+p[1]+`"`)
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(p[2]))
	}
	mw.Close()
	return "multipart/form-data; boundary=" + mw.Boundary(), buf.Bytes()
}

func TestParseLabel(t *testing.T) {
	t.Parallel()
	pdf := "%PDF-1.4\n%test\n"
	b64 := base64.StdEncoding.EncodeToString([]byte(pdf))
	wrapped := b64[:8] + "\r\n" + b64[8:]
	meta := `{"trackingNumber":"9205590234567800000011","postage":7.99}`

	ok := []struct {
		name, contentType, body string
	}{
		{"vendor JSON", labelsJSON, `{"trackingNumber":"9205590234567800000011","labelImage":"` + b64 + `"}`},
		{"vendor JSON with nested metadata", labelsJSON, `{"labelMetadata":` + meta + `,"labelImage":"` + b64 + `"}`},
		{"international", labelsJSON, `{"internationalTrackingNumber":"9205590234567800000011","labelImage":"` + b64 + `"}`},
		{"return", labelsJSON, `{"trackingNumber":"9205590234567800000011","returnLabelImage":"` + b64 + `"}`},
	}
	for _, tc := range ok {
		label, err := parseLabel(tc.contentType, []byte(tc.body))
		if err != nil || label.TrackingNumber != "9205590234567800000011" || string(label.Document) != pdf {
			t.Errorf("%s: %+v, %v", tc.name, label, err)
		}
	}
	for name, parts := range map[string][][3]string{
		"base64 part with line breaks": {{"application/json", "labelMetadata", meta}, {"application/pdf", "labelImage", wrapped}},
		"raw PDF part":                 {{"application/json", "labelMetadata", meta}, {"application/pdf", "labelImage", pdf}},
		"unnamed parts":                {{"application/json", "", meta}, {"application/pdf", "", b64}},
		"return parts":                 {{"application/json", "returnLabelMetadata", meta}, {"application/pdf", "returnLabelImage", b64}},
		"receipt part ignored": {{"application/json", "labelMetadata", meta}, {"application/pdf", "labelImage", b64},
			{"application/pdf", "receiptImage", "garbage"}},
	} {
		ct, body := multipartBody(t, parts...)
		label, err := parseLabel(ct, body)
		if err != nil || label.TrackingNumber != "9205590234567800000011" || string(label.Document) != pdf {
			t.Errorf("%s: %+v, %v", name, label, err)
		}
	}

	noImage, noImageBody := multipartBody(t, [3]string{"application/json", "labelMetadata", meta})
	bad := []struct {
		name, contentType, body string
	}{
		// USPS's documented examples carry a PNG placeholder, not a PDF.
		{"documented domestic example", labelsJSON, string(readExample(t, "label_vendor.json"))},
		{"documented international example", labelsJSON, string(readExample(t, "international_label_response.json"))},
		{"no tracking number", labelsJSON, `{"labelImage":"` + b64 + `"}`},
		{"no image", labelsJSON, `{"trackingNumber":"1"}`},
		{"not base64", labelsJSON, `{"trackingNumber":"1","labelImage":"%%%"}`},
		{"not JSON", labelsJSON, `<html>oops</html>`},
		{"wrong types", labelsJSON, `{"trackingNumber":17,"labelImage":[]}`},
		{"multipart without image", noImage, string(noImageBody)},
		{"multipart without boundary", "multipart/form-data", "--x--"},
		{"truncated multipart", "multipart/form-data; boundary=abc", "--abc\r\nContent-Type: application/json\r\n\r\n{\"trackingNumber\""},
	}
	for _, tc := range bad {
		_, err := parseLabel(tc.contentType, []byte(tc.body))
		if !errors.Is(err, carriers.ErrFailed) {
			t.Errorf("%s: err = %v, want ErrFailed", tc.name, err)
		}
	}
}

func TestAddressee(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, company         string
		first, last, wantFirm string
	}{
		{"Joe Doe", "", "Joe", "Doe", ""},
		{"Mary Ann van Dyke", "Acme", "Mary Ann van", "Dyke", "Acme"},
		{"Cher", "", "", "", "Cher"},
		{"Cher", "Acme", "Cher", "", "Acme"},
		{"", "Acme", "", "", "Acme"},
	} {
		f, l, firm := addressee(carriers.Address{Name: tc.name, Company: tc.company})
		if f != tc.first || l != tc.last || firm != tc.wantFirm {
			t.Errorf("addressee(%q, %q) = %q %q %q", tc.name, tc.company, f, l, firm)
		}
	}
	if got := phone("(314) 555-0100"); got != "3145550100" {
		t.Errorf("phone = %q", got)
	}
	if got := phone("12"); got != "" {
		t.Errorf("phone(12) = %q, want it dropped", got)
	}
	if got := email("not an email"); got != "" {
		t.Errorf("email = %q, want it dropped", got)
	}
}
