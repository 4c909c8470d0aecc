package library

import (
	"fmt"
	"math"
	"net/netip"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// IPType and CIDRType are the CEL types of ip("...") and cidr("...") values.
var (
	IPType   = cel.OpaqueType("net.IP")
	CIDRType = cel.OpaqueType("net.CIDR")
)

// IP is an IPv4 or IPv6 address (without zone) as a CEL value.
type IP struct {
	netip.Addr
}

func (ip IP) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(ip.Addr).AssignableTo(t) {
		return ip.Addr, nil
	}
	if reflect.TypeOf("").AssignableTo(t) {
		return ip.Addr.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'IP' to '%v'", t)
}

func (ip IP) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case IPType:
		return ip
	case types.TypeType:
		return IPType
	case types.StringType:
		return types.String(ip.Addr.String())
	}
	return types.NewErr("type conversion error from '%s' to '%s'", IPType, t)
}

func (ip IP) Equal(other ref.Val) ref.Val {
	o, ok := other.(IP)
	if !ok {
		return types.ValOrErr(other, "no such overload")
	}
	return types.Bool(ip.Addr == o.Addr)
}

func (ip IP) Type() ref.Type { return IPType }
func (ip IP) Value() any     { return ip.Addr }

// Size is the length of the address in bytes; it prices comparisons.
func (ip IP) Size() ref.Val { return types.Int(int(math.Ceil(float64(ip.Addr.BitLen()) / 8))) }

// CIDR is an IP prefix as a CEL value.
type CIDR struct {
	netip.Prefix
}

func (c CIDR) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(c.Prefix).AssignableTo(t) {
		return c.Prefix, nil
	}
	if reflect.TypeOf("").AssignableTo(t) {
		return c.Prefix.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'CIDR' to '%v'", t)
}

func (c CIDR) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case CIDRType:
		return c
	case types.TypeType:
		return CIDRType
	case types.StringType:
		return types.String(c.Prefix.String())
	}
	return types.NewErr("type conversion error from '%s' to '%s'", CIDRType, t)
}

func (c CIDR) Equal(other ref.Val) ref.Val {
	o, ok := other.(CIDR)
	if !ok {
		return types.ValOrErr(other, "no such overload")
	}
	return types.Bool(c.Prefix == o.Prefix)
}

func (c CIDR) Type() ref.Type { return CIDRType }
func (c CIDR) Value() any     { return c.Prefix }

// Size is the length of the prefix in bytes; it prices comparisons.
func (c CIDR) Size() ref.Val { return types.Int(int(math.Ceil(float64(c.Prefix.Bits()) / 8))) }

// IPs returns the Kubernetes IP library:
//
//	ip(<string>) IP, isIP(<string>) bool, ip.isCanonical(<string>) bool, string(<IP>) string
//	<IP>.family() int (4 or 6)
//	<IP>.isUnspecified(), isLoopback(), isLinkLocalMulticast(), isLinkLocalUnicast(), isGlobalUnicast() bool
//
// Zones and IPv4-mapped IPv6 addresses are rejected.
func IPs() cel.EnvOption {
	predicate := func(id string, test func(netip.Addr) bool) cel.FunctionOpt {
		return cel.MemberOverload(id, []*cel.Type{IPType}, cel.BoolType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			ip, ok := v.(IP)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return types.Bool(test(ip.Addr))
		}))
	}
	return cel.Lib(newLibrary("kubernetes.net.ip", map[string][]cel.FunctionOpt{
		"ip": {cel.Overload("string_to_ip", []*cel.Type{cel.StringType}, IPType, cel.UnaryBinding(stringToIP))},
		"family": {cel.MemberOverload("ip_family", []*cel.Type{IPType}, cel.IntType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			ip, ok := v.(IP)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			switch {
			case ip.Addr.Is4():
				return types.Int(4)
			case ip.Addr.Is6():
				return types.Int(6)
			}
			return types.NewErr("IP address %q is not an IPv4 or IPv6 address", ip.Addr.String())
		}))},
		"ip.isCanonical": {cel.Overload("ip_is_canonical", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			addr, err := parseIP(s)
			if err != nil {
				return types.NewErr("%v", err)
			}
			return types.Bool(addr.String() == s)
		}))},
		"isUnspecified":        {predicate("ip_is_unspecified", netip.Addr.IsUnspecified)},
		"isLoopback":           {predicate("ip_is_loopback", netip.Addr.IsLoopback)},
		"isLinkLocalMulticast": {predicate("ip_is_link_local_multicast", netip.Addr.IsLinkLocalMulticast)},
		"isLinkLocalUnicast":   {predicate("ip_is_link_local_unicast", netip.Addr.IsLinkLocalUnicast)},
		"isGlobalUnicast":      {predicate("ip_is_global_unicast", netip.Addr.IsGlobalUnicast)},
		"isIP": {cel.Overload("is_ip", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			_, err := parseIP(s)
			return types.Bool(err == nil)
		}))},
		"string": {cel.Overload("ip_to_string", []*cel.Type{IPType}, cel.StringType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			ip, ok := v.(IP)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return types.String(ip.Addr.String())
		}))},
	}, cel.Types(IPType)))
}

// CIDRs returns the Kubernetes CIDR library:
//
//	cidr(<string>) CIDR, isCIDR(<string>) bool, string(<CIDR>) string
//	<CIDR>.containsIP(<IP or string>), containsCIDR(<CIDR or string>) bool
//	<CIDR>.ip() IP, prefixLength() int, masked() CIDR
func CIDRs() cel.EnvOption {
	withCIDR := func(fn func(CIDR) ref.Val) func(ref.Val) ref.Val {
		return func(v ref.Val) ref.Val {
			c, ok := v.(CIDR)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return fn(c)
		}
	}
	return cel.Lib(newLibrary("kubernetes.net.cidr", map[string][]cel.FunctionOpt{
		"cidr": {cel.Overload("string_to_cidr", []*cel.Type{cel.StringType}, CIDRType, cel.UnaryBinding(stringToCIDR))},
		"containsIP": {
			cel.MemberOverload("cidr_contains_ip_string", []*cel.Type{CIDRType, cel.StringType}, cel.BoolType,
				cel.BinaryBinding(func(c, s ref.Val) ref.Val { return cidrContainsIP(c, stringToIP(s)) })),
			cel.MemberOverload("cidr_contains_ip_ip", []*cel.Type{CIDRType, IPType}, cel.BoolType,
				cel.BinaryBinding(cidrContainsIP)),
		},
		"containsCIDR": {
			cel.MemberOverload("cidr_contains_cidr_string", []*cel.Type{CIDRType, cel.StringType}, cel.BoolType,
				cel.BinaryBinding(func(c, s ref.Val) ref.Val { return cidrContainsCIDR(c, stringToCIDR(s)) })),
			cel.MemberOverload("cidr_contains_cidr", []*cel.Type{CIDRType, CIDRType}, cel.BoolType,
				cel.BinaryBinding(cidrContainsCIDR)),
		},
		"ip": {cel.MemberOverload("cidr_ip", []*cel.Type{CIDRType}, IPType, cel.UnaryBinding(withCIDR(func(c CIDR) ref.Val {
			return IP{Addr: c.Prefix.Addr()}
		})))},
		"prefixLength": {cel.MemberOverload("cidr_prefix_length", []*cel.Type{CIDRType}, cel.IntType, cel.UnaryBinding(withCIDR(func(c CIDR) ref.Val {
			return types.Int(c.Prefix.Bits())
		})))},
		"masked": {cel.MemberOverload("cidr_masked", []*cel.Type{CIDRType}, CIDRType, cel.UnaryBinding(withCIDR(func(c CIDR) ref.Val {
			return CIDR{Prefix: c.Prefix.Masked()}
		})))},
		"isCIDR": {cel.Overload("is_cidr", []*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(func(v ref.Val) ref.Val {
			s, ok := v.Value().(string)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			_, err := parseCIDR(s)
			return types.Bool(err == nil)
		}))},
		"string": {cel.Overload("cidr_to_string", []*cel.Type{CIDRType}, cel.StringType, cel.UnaryBinding(withCIDR(func(c CIDR) ref.Val {
			return types.String(c.Prefix.String())
		})))},
	}, cel.Types(CIDRType)))
}

func stringToIP(v ref.Val) ref.Val {
	s, ok := v.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	addr, err := parseIP(s)
	if err != nil {
		return types.NewErr("%v", err)
	}
	return IP{Addr: addr}
}

func stringToCIDR(v ref.Val) ref.Val {
	s, ok := v.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	prefix, err := parseCIDR(s)
	if err != nil {
		return types.NewErr("network address parse error during conversion from string: %v", err)
	}
	return CIDR{Prefix: prefix}
}

func cidrContainsIP(c, ip ref.Val) ref.Val {
	prefix, ok := c.(CIDR)
	if !ok {
		return types.MaybeNoSuchOverloadErr(ip)
	}
	addr, ok := ip.(IP)
	if !ok {
		return types.MaybeNoSuchOverloadErr(c)
	}
	return types.Bool(prefix.Contains(addr.Addr))
}

func cidrContainsCIDR(c, other ref.Val) ref.Val {
	prefix, ok := c.(CIDR)
	if !ok {
		return types.MaybeNoSuchOverloadErr(c)
	}
	inner, ok := other.(CIDR)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(prefix.Overlaps(inner.Prefix) && prefix.Prefix.Bits() <= inner.Prefix.Bits())
}

func parseIP(s string) (netip.Addr, error) {
	addr, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("IP Address %q parse error during conversion from string: %v", s, err)
	}
	if addr.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("IP address %q with zone value is not allowed", s)
	}
	if addr.Is4In6() {
		return netip.Addr{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", s)
	}
	return addr, nil
}

func parseCIDR(s string) (netip.Prefix, error) {
	prefix, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("network address parse error during conversion from string: %v", err)
	}
	if prefix.Addr().Is4In6() {
		return netip.Prefix{}, fmt.Errorf("IPv4-mapped IPv6 address %q is not allowed", s)
	}
	return prefix, nil
}
