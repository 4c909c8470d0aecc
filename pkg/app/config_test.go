package app

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

// A Config built in code that lacks what New relies on is refused before
// anything is created, each lack named, and the listener it was handed is
// closed: New owns it from the start.
func TestNewRefusesAnIncompleteConfig(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := NewConfig()
	c.Listener = ln
	c.ServiceClusterIPRange = nil
	_, err = New(context.Background(), c)
	if err == nil {
		t.Fatal("New accepted a Config without DataDir, Logger and service range")
	}
	for _, field := range []string{"DataDir", "Logger", "ServiceClusterIPRange"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error %q does not name %s", err, field)
		}
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("the listener is still open: Accept = %v", err)
	}
}
