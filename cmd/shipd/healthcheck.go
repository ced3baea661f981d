package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// healthcheck asks a running server's /readyz and exits 0 when it is ready,
// 1 otherwise: the container image's HEALTHCHECK and compose's health test,
// where there is no shell or curl (the image is FROM scratch).
func healthcheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("healthcheck", stderr)
	addr := fs.String("addr", envOr("SHIPD_ADDR", "127.0.0.1:8080"), "the server's listen address; an unspecified host (0.0.0.0, ::) is asked on loopback")
	url := fs.String("url", "", "the URL to ask instead (default http://ADDR/readyz)")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *url == "" {
		host, port, err := net.SplitHostPort(*addr)
		if err != nil {
			return usageError("healthcheck: --addr: " + err.Error())
		}
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			host = "127.0.0.1"
		}
		*url = "http://" + net.JoinHostPort(host, port) + "/readyz"
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		return usageError("healthcheck: " + err.Error())
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %d: %s", *url, res.StatusCode, body)
	}
	_, err = stdout.Write(body)
	return err
}
