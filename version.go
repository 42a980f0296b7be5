package main

// Set at build time with -ldflags "-X main.version=… -X main.commit=… -X main.buildDate=…".
var (
	version   = "0.1.0-dev"
	commit    = "unknown"
	buildDate = "unknown"
)
