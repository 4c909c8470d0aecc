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

// The primary service range must be of the advertised address's family,
// with kube-apiserver 1.37.1's start-up error ("--service-cluster-ip-range=
// fd00::/112,10.0.0.0/24 --advertise-address=10.1.2.3" makes it say so).
func TestTheServiceRangeMatchesTheAdvertisedFamily(t *testing.T) {
	c := NewConfig()
	_, c.ServiceClusterIPRange, _ = net.ParseCIDR("fd00::/112")
	_, c.SecondaryServiceClusterIPRange, _ = net.ParseCIDR("10.0.0.0/24")
	c.AdvertiseAddress = net.ParseIP("10.1.2.3")
	err := c.validate()
	want := `service IP family "fd00::/112" must match public address family "10.1.2.3"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("validate = %v, want an error %q", err, want)
	}
	c.AdvertiseAddress = net.ParseIP("fd00:1::3")
	if err := c.validate(); err != nil && strings.Contains(err.Error(), "service IP family") {
		t.Errorf("an IPv6 advertised address with an IPv6 primary range was refused: %v", err)
	}
}
