package rowcanon

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/google/orderedcode"
)

// Tags: the first byte of every encoded value. Their order is the order of
// values of different kinds in a key (SQL never compares those: a key
// column has one kind).
const (
	tagNull      = 0x01
	tagBool      = 0x10
	tagInt       = 0x20
	tagNumeric   = 0x28
	tagFloat     = 0x30
	tagText      = 0x40
	tagBytes     = 0x48
	tagDate      = 0x50
	tagTimestamp = 0x58
	tagUUID      = 0x60
	tagJSON      = 0x68
)

// Classes of a numeric, the byte after its tag.
const (
	numNegative = 0x01
	numZero     = 0x02
	numPositive = 0x03
	numTerm     = 0x00 // ends the digits of a positive numeric
)

// appendValue appends v's encoding. In a key a float -0 is written as +0
// (they are one value in SQL's order); in a row image it keeps its sign.
func appendValue(b []byte, v Value, inKey bool) []byte {
	switch v.kind {
	case KindNull:
		return append(b, tagNull)
	case KindBool:
		return append(b, tagBool, byte(v.i))
	case KindInt:
		return appendInt64(append(b, tagInt), v.i)
	case KindNumeric:
		return appendNumeric(append(b, tagNumeric), v)
	case KindFloat:
		return appendFloat(append(b, tagFloat), v.f, inKey)
	case KindText:
		return appendString(append(b, tagText), v.s)
	case KindBytes:
		return appendString(append(b, tagBytes), v.s)
	case KindDate:
		return appendInt64(append(b, tagDate), v.i)
	case KindTimestamp:
		return appendInt64(append(b, tagTimestamp), v.i)
	case KindUUID:
		return append(append(b, tagUUID), v.s...)
	case KindJSON:
		return appendString(append(b, tagJSON), v.s)
	}
	panic(fmt.Sprintf("rowcanon: value of unknown kind %d", v.kind))
}

// appendInt64 is x big-endian in 8 bytes with its sign bit flipped.
func appendInt64(b []byte, x int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(x)^(1<<63))
}

// appendFloat is the IEEE 754 bits of f, with the sign bit flipped for a
// positive f and all bits flipped for a negative one.
func appendFloat(b []byte, f float64, inKey bool) []byte {
	bits := math.Float64bits(f)
	if inKey && f == 0 {
		bits = 0
	}
	if bits&(1<<63) != 0 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(b, bits)
}

// appendString is orderedcode's string: 0x00 as 00 FF, 0xFF as FF 00,
// then the terminator 00 01.
func appendString(b []byte, s string) []byte {
	b, err := orderedcode.Append(b, s)
	if err != nil { // orderedcode fails only on an unknown item type
		panic(fmt.Sprintf("rowcanon: orderedcode: %v", err))
	}
	return b
}

// appendNumeric is the class byte, then for a positive value the exponent
// (int32, big-endian, sign bit flipped), the ASCII digits and numTerm;
// for a negative value the bitwise complement of the positive encoding
// of its absolute value.
func appendNumeric(b []byte, v Value) []byte {
	neg, digits, exp := v.numericParts()
	if digits == "" {
		return append(b, numZero)
	}
	if !neg {
		b = append(b, numPositive)
		return appendMagnitude(b, digits, exp)
	}
	b = append(b, numNegative)
	start := len(b)
	b = appendMagnitude(b, digits, exp)
	for i := start; i < len(b); i++ {
		b[i] = ^b[i]
	}
	return b
}

func appendMagnitude(b []byte, digits string, exp int64) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(int32(exp))^(1<<31))
	b = append(b, digits...)
	return append(b, numTerm)
}
