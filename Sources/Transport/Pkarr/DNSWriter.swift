/// Builds a DNS packet, compressing names by their longest suffix already written (RFC 1035
/// 4.1.4), as DNS libraries do: a pkarr zone's 52-character TLD is written once.
struct DNSWriter {
    private(set) var bytes: [UInt8] = []
    /// Each suffix written so far (its labels) and where it starts.
    private var suffixes: [[String]: Int] = [:]

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xff))
    }

    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8((value >> UInt32(shift)) & 0xff)) }
    }

    mutating func append(_ data: some Sequence<UInt8>) { bytes.append(contentsOf: data) }

    /// Overwrites two bytes at `offset` (a length written after its data).
    mutating func patch(_ value: UInt16, at offset: Int) {
        bytes[offset] = UInt8(value >> 8)
        bytes[offset + 1] = UInt8(value & 0xff)
    }

    /// `name`, ending in a pointer to a suffix already in the packet when `compress` is set
    /// (never for SVCB targets, RFC 9460 2.2).
    mutating func name(_ name: DNSName, compress: Bool = true) {
        var labels = name.labels[...]
        while !labels.isEmpty {
            let suffix = Array(labels)
            if compress, let offset = suffixes[suffix] {
                u16(0xc000 | UInt16(offset))
                return
            }
            if compress, bytes.count < 0x4000 { suffixes[suffix] = bytes.count }
            let label = Array(labels.first!.utf8)
            u8(UInt8(label.count))
            append(label)
            labels = labels.dropFirst()
        }
        u8(0)
    }
}
