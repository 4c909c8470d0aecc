package schema

import "reflect"

// The forms kube-apiserver accepts for x-kubernetes-int-or-string, which
// structural schemas may spell out under anyOf or allOf.

var (
	onlyIntegerType = Structural{Type: "integer"}
	onlyStringType  = Structural{Type: "string"}
)

// IsIntOrStringAnyOf matches
//
//	anyOf:
//	- type: integer
//	- type: string
func IsIntOrStringAnyOf(s *Structural) bool {
	return isIntOrStringPair(s.AnyOf)
}

// IsIntOrStringAllOf matches
//
//	allOf:
//	- anyOf:
//	  - type: integer
//	  - type: string
//	- ... zero or more
func IsIntOrStringAllOf(s *Structural) bool {
	return len(s.AllOf) >= 1 && isIntOrStringPair(s.AllOf[0].AnyOf)
}

func isIntOrStringPair(anyOf []*Structural) bool {
	return len(anyOf) == 2 &&
		reflect.DeepEqual(*anyOf[0], onlyIntegerType) &&
		reflect.DeepEqual(*anyOf[1], onlyStringType)
}
