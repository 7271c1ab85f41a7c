/// RIPEMD-160 (Dobbertin, Bosselaers, Preneel 1996). libsodium does not provide it and
/// OpenSSL 3 hides it in the legacy provider, so it is implemented here and checked
/// against the authors' published vectors.
public enum RIPEMD160 {
    public static let digestSize = 20

    public static func hash(_ data: [UInt8]) -> [UInt8] {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32) =
            (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476, 0xc3d2_e1f0)

        // Padding: 0x80, zeros to 56 mod 64, then the bit length as a 64-bit little-endian integer.
        var message = data
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        let bitLength = UInt64(data.count) &* 8
        for i in 0..<8 { message.append(UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i)))) }

        var x = [UInt32](repeating: 0, count: 16)
        var block = 0
        while block < message.count {
            for i in 0..<16 {
                let b = block + 4 * i
                x[i] = UInt32(message[b]) | UInt32(message[b + 1]) << 8
                    | UInt32(message[b + 2]) << 16 | UInt32(message[b + 3]) << 24
            }
            compress(&h, x)
            block += 64
        }

        var digest = [UInt8]()
        digest.reserveCapacity(digestSize)
        for word in [h.0, h.1, h.2, h.3, h.4] {
            for i in 0..<4 { digest.append(UInt8(truncatingIfNeeded: word >> (8 * UInt32(i)))) }
        }
        return digest
    }

    // Message word order, rotation amounts and constants for the left and right lines.
    private static let leftWords: [Int] = [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
        7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8,
        3, 10, 14, 4, 9, 15, 8, 1, 2, 7, 0, 6, 13, 11, 5, 12,
        1, 9, 11, 10, 0, 8, 12, 4, 13, 3, 7, 15, 14, 5, 6, 2,
        4, 0, 5, 9, 7, 12, 2, 10, 14, 1, 3, 8, 11, 6, 15, 13,
    ]
    private static let rightWords: [Int] = [
        5, 14, 7, 0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12,
        6, 11, 3, 7, 0, 13, 5, 10, 14, 15, 8, 12, 4, 9, 1, 2,
        15, 5, 1, 3, 7, 14, 6, 9, 11, 8, 12, 2, 10, 0, 4, 13,
        8, 6, 4, 1, 3, 11, 15, 0, 5, 12, 2, 13, 9, 7, 10, 14,
        12, 15, 10, 4, 1, 5, 8, 7, 6, 2, 13, 14, 0, 3, 9, 11,
    ]
    private static let leftShifts: [UInt32] = [
        11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8,
        7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7, 13, 12,
        11, 13, 6, 7, 14, 9, 13, 15, 14, 8, 13, 6, 5, 12, 7, 5,
        11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5, 6, 8, 6, 5, 12,
        9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6,
    ]
    private static let rightShifts: [UInt32] = [
        8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6,
        9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15, 13, 11,
        9, 7, 15, 11, 8, 6, 6, 14, 12, 13, 5, 14, 13, 13, 7, 5,
        15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9, 12, 5, 15, 8,
        8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11,
    ]
    private static let leftConstants: [UInt32] = [0x0000_0000, 0x5a82_7999, 0x6ed9_eba1, 0x8f1b_bcdc, 0xa953_fd4e]
    private static let rightConstants: [UInt32] = [0x50a2_8be6, 0x5c4d_d124, 0x6d70_3ef3, 0x7a6d_76e9, 0x0000_0000]

    @inline(__always)
    private static func f(_ round: Int, _ x: UInt32, _ y: UInt32, _ z: UInt32) -> UInt32 {
        switch round {
        case 0: return x ^ y ^ z
        case 1: return (x & y) | (~x & z)
        case 2: return (x | ~y) ^ z
        case 3: return (x & z) | (y & ~z)
        default: return x ^ (y | ~z)
        }
    }

    @inline(__always)
    private static func rotl(_ v: UInt32, _ n: UInt32) -> UInt32 { (v << n) | (v >> (32 - n)) }

    private static func compress(_ h: inout (UInt32, UInt32, UInt32, UInt32, UInt32), _ x: [UInt32]) {
        var (al, bl, cl, dl, el) = h
        var (ar, br, cr, dr, er) = h
        for j in 0..<80 {
            let round = j / 16
            var t = rotl(al &+ f(round, bl, cl, dl) &+ x[leftWords[j]] &+ leftConstants[round], leftShifts[j]) &+ el
            al = el; el = dl; dl = rotl(cl, 10); cl = bl; bl = t
            t = rotl(ar &+ f(4 - round, br, cr, dr) &+ x[rightWords[j]] &+ rightConstants[round], rightShifts[j]) &+ er
            ar = er; er = dr; dr = rotl(cr, 10); cr = br; br = t
        }
        let t = h.1 &+ cl &+ dr
        h.1 = h.2 &+ dl &+ er
        h.2 = h.3 &+ el &+ ar
        h.3 = h.4 &+ al &+ br
        h.4 = h.0 &+ bl &+ cr
        h.0 = t
    }
}
