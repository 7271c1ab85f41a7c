import Bitcoin

/// BOLT11's data part is a sequence of 5-bit words (bech32 characters); these helpers
/// move numbers and bytes in and out of it. Every number is big-endian.
enum FiveBitWords {
    /// Bech32's alphabet: character i is the word i (BIP173). `Bech32` keeps its copy
    /// internal; the decoder needs it to tell a typo from a checksum failure.
    static let alphabet: [UInt8] = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    /// `value` in exactly `count` words (the timestamp's fixed 7, a field's 2-word length).
    static func fixed(_ value: UInt64, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (5 * UInt64(count - 1 - $0))) & 31 }
    }

    /// `value` in as few words as possible (BOLT11: a writer SHOULD use the minimum
    /// `data_length` for `x` and `c`); zero is no words at all.
    static func minimal(_ value: UInt64) -> [UInt8] {
        var count = 0
        while count < 13, value >> (5 * UInt64(count)) != 0 { count += 1 }
        return fixed(value, count: count)
    }

    /// The number held by `words`, or nil when it exceeds 64 bits. Leading zero words are
    /// allowed (the BOLT asks writers for the minimum length but does not forbid more).
    static func number(_ words: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for word in words {
            guard value >> 59 == 0 else { return nil }
            value = value << 5 | UInt64(word)
        }
        return value
    }

    /// Bytes as words, the last word padded with zero bits (the writer's rule).
    static func fromBytes(_ bytes: [UInt8]) -> [UInt8] {
        // Cannot fail: every byte fits in 8 bits and padding is allowed.
        Bech32.convertBits(bytes, from: 8, to: 5, pad: true)!
    }

    /// Words as bytes. Bits left over after the last whole byte are padding and are
    /// dropped, whatever their value: the signature covers the words themselves, and
    /// refusing odd padding would make this reader stricter than the BOLT.
    static func toBytes(_ words: ArraySlice<UInt8>) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(words.count * 5 / 8)
        var accumulator: UInt32 = 0
        var bits = 0
        for word in words {
            accumulator = (accumulator << 5 | UInt32(word)) & 0xfff
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return out
    }
}
