package main

import (
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A container's shipd listens on 0.0.0.0: nobody reaches that address, so
// the first start's settingsUrl says localhost at the port, and a label's
// labelUrl is the address the client used, not the listen address.
func TestServeOnAWildcardAddress(t *testing.T) {
	t.Parallel()
	_, port, err := net.SplitHostPort(freeAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	s := startServe(t, filepath.Join(t.TempDir(), "shipd.db"), "--addr", "0.0.0.0:"+port)
	var demo struct{ SettingsURL string }
	if err := json.Unmarshal([]byte(s.stdout.String()), &demo); err != nil {
		t.Fatal(err)
	}
	if want := "http://localhost:" + port + "/settings/"; demo.SettingsURL != want {
		t.Errorf("settingsUrl = %q, want %q", demo.SettingsURL, want)
	}
	if !strings.Contains(s.stderr.String(), `"public_url":"the URLs of answers are each request's own`) {
		t.Errorf("the listening line does not say where URLs come from:\n%s", s.stderr.String())
	}
	token := s.demoToken(t)
	status, created := s.call(t, "POST", "/api/v1/labels/create", token, labelBody())
	if status != http.StatusAccepted {
		t.Fatalf("create: %d %v", status, created)
	}
	id, _ := created["id"].(string)
	deadline := time.Now().Add(20 * time.Second)
	for {
		status, got := s.call(t, "GET", "/api/v1/labels/"+id, token, nil)
		if status == http.StatusOK && got["status"] == "purchased" {
			if want := s.base + "/api/v1/labels/" + id + "/label.pdf"; got["labelUrl"] != want {
				t.Errorf("labelUrl = %v, want %q (the address the client used)", got["labelUrl"], want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("label not purchased: %d %v", status, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestListenURL(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"0.0.0.0:8080":   "http://localhost:8080",
		"[::]:8080":      "http://localhost:8080",
		"127.0.0.1:9000": "http://127.0.0.1:9000",
		"[::1]:9000":     "http://[::1]:9000",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := listenURL(a); got != want {
			t.Errorf("listenURL(%s) = %q, want %q", addr, got, want)
		}
	}
}
