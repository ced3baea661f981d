package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// A client that sends its whole body before it reads the answer (as most
// HTTP libraries do) gets the 413 and its limit, not a reset connection:
// a batch of 9.6 MiB against the batch's 8 MiB, with a length and chunked.
func TestOversizedBodyIsAnsweredNotReset(t *testing.T) {
	t.Parallel()
	b := setupLabels(t)
	item, err := json.Marshal(labelBody(func(m map[string]any) {
		m["options"] = map[string]any{"reference": strings.Repeat("r", 1800)}
	}))
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	body.WriteString(`{"shipments":[`)
	for i := 0; body.Len() < 9600<<10; i++ {
		if i > 0 {
			body.WriteByte(',')
		}
		body.Write(item)
	}
	body.WriteString(`]}`)
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			t.Parallel()
			res := sendWholeBodyFirst(t, b.http.URL, "/api/v1/batches", b.token, body.Bytes(), chunked)
			defer res.Body.Close()
			raw, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusRequestEntityTooLarge || !bytes.Contains(raw, []byte(`"code":"payload_too_large"`)) ||
				!bytes.Contains(raw, []byte("8388608 bytes")) {
				t.Errorf("%d %s, want 413 payload_too_large naming the limit", res.StatusCode, raw)
			}
		})
	}
}

// sendWholeBodyFirst writes a POST and all its body on a fresh connection,
// failing t if the server resets it, then reads the answer.
func sendWholeBodyFirst(t *testing.T, base, path, token string, body []byte, chunked bool) *http.Response {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	w := bufio.NewWriter(conn)
	fmt.Fprintf(w, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n", path, u.Host, token)
	if chunked {
		fmt.Fprint(w, "Transfer-Encoding: chunked\r\n\r\n")
		for rest := body; len(rest) > 0; {
			n := min(len(rest), 64<<10)
			fmt.Fprintf(w, "%x\r\n%s\r\n", n, rest[:n])
			rest = rest[n:]
		}
		fmt.Fprint(w, "0\r\n\r\n")
	} else {
		fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(body))
		w.Write(body)
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("sending the body: %v (the server closed the connection before reading it)", err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return res
}
