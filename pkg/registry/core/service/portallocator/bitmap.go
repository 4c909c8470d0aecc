package portallocator

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
)

// bitmap is the set of allocated ports of a range, as kube-apiserver
// stores it in RangeAllocation.data: bit i (of the number whose big-endian
// bytes are data, without leading zero bytes) is set when port base+i is
// allocated. The empty set is zero bytes.
type bitmap struct {
	bits *big.Int
}

func decodeBitmap(data []byte) bitmap { return bitmap{bits: new(big.Int).SetBytes(data)} }

// encode returns the stored form; never nil, so that an empty set is
// stored as an empty data field, as kube-apiserver stores it.
func (b bitmap) encode() []byte {
	out := b.bits.Bytes()
	if out == nil {
		out = []byte{}
	}
	return out
}

func (b bitmap) has(offset int) bool { return b.bits.Bit(offset) == 1 }

func (b bitmap) set(offset int) { b.bits.SetBit(b.bits, offset, 1) }

func (b bitmap) clear(offset int) { b.bits.SetBit(b.bits, offset, 0) }

// offsets calls fn with every set offset, in increasing order.
func (b bitmap) offsets(fn func(int)) {
	for i, w := range b.bits.Bits() {
		for w != 0 {
			bit := bits.TrailingZeros(uint(w))
			fn(i*bits.UintSize + bit)
			w &^= 1 << bit
		}
	}
}

// count is the number of set offsets.
func (b bitmap) count() int {
	n := 0
	for _, w := range b.bits.Bits() {
		n += bits.OnesCount(uint(w))
	}
	return n
}

// next picks a free offset of [0, size) as kube-apiserver does: from a
// random start, the first free one of the dynamic band [static, size),
// wrapping around in it; only when that band is full, the same in the
// static band [0, static). It returns false when every offset is taken.
func (b bitmap) next(size, static int) (int, bool) {
	if found, ok := b.scan(static, size); ok {
		return found, true
	}
	return b.scan(0, static)
}

// scan looks for a free offset of [lo, hi) from a random start.
func (b bitmap) scan(lo, hi int) (int, bool) {
	width := hi - lo
	if width <= 0 {
		return 0, false
	}
	start := rand.IntN(width)
	for i := range width {
		at := lo + (start+i)%width
		if !b.has(at) {
			return at, true
		}
	}
	return 0, false
}
