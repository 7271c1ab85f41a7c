/// The output descriptor checksum (BIP380): eight characters after `#`, a BCH code over
/// the descriptor's characters, as Core's `DescriptorChecksum` computes it.
enum DescriptorChecksum {
    private static let inputCharset = Array(
        "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ".utf8)
    private static let checksumCharset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    private static let generator: [UInt64] = [0xf5dee51989, 0xa9fdca3312, 0x1bab10e32d, 0x3706b1677a, 0x644d626ffd]

    /// `descriptor#checksum`; nil when the descriptor has a character outside the charset.
    static func append(to descriptor: String) -> String? {
        var symbols: [UInt64] = []
        var groups: [UInt64] = []
        for byte in descriptor.utf8 {
            guard let position = inputCharset.firstIndex(of: byte) else { return nil }
            symbols.append(UInt64(position) & 31)
            groups.append(UInt64(position) >> 5)
            if groups.count == 3 {
                symbols.append(groups[0] * 9 + groups[1] * 3 + groups[2])
                groups = []
            }
        }
        if groups.count == 1 { symbols.append(groups[0]) }
        if groups.count == 2 { symbols.append(groups[0] * 3 + groups[1]) }
        let checksum = polymod(symbols + [UInt64](repeating: 0, count: 8)) ^ 1
        let characters = (0..<8).map { checksumCharset[Int((checksum >> (5 * (7 - UInt64($0)))) & 31)] }
        return descriptor + "#" + String(decoding: characters, as: UTF8.self)
    }

    private static func polymod(_ symbols: [UInt64]) -> UInt64 {
        var checksum: UInt64 = 1
        for value in symbols {
            let top = checksum >> 35
            checksum = ((checksum & 0x7_ffff_ffff) << 5) ^ value
            for bit in 0..<5 where (top >> UInt64(bit)) & 1 != 0 { checksum ^= generator[bit] }
        }
        return checksum
    }
}
