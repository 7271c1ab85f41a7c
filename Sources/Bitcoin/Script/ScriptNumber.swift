/// A number as script arithmetic sees it: little-endian sign-magnitude, minimal length.
/// Locktimes in CHECKLOCKTIMEVERIFY scripts are pushed in this form.
public struct ScriptNumber: Hashable, Sendable {
    public let value: Int64

    public init(_ value: Int64) { self.value = value }

    /// Minimal encoding: empty for zero, sign in the top bit of the last byte.
    public var bytes: [UInt8] {
        if value == 0 { return [] }
        var result: [UInt8] = []
        let negative = value < 0
        var magnitude = value.magnitude
        while magnitude > 0 {
            result.append(UInt8(magnitude & 0xff))
            magnitude >>= 8
        }
        if result[result.count - 1] & 0x80 != 0 {
            result.append(negative ? 0x80 : 0x00)
        } else if negative {
            result[result.count - 1] |= 0x80
        }
        return result
    }

    /// Decodes as the interpreter does: at most `maxSize` bytes (4 for arithmetic, 5 for
    /// locktimes), and when `requireMinimal`, no superfluous trailing zero byte.
    public init(bytes: [UInt8], maxSize: Int = 4, requireMinimal: Bool = true) throws {
        guard bytes.count <= maxSize else {
            throw BitcoinError.invalidScript("script number longer than \(maxSize) bytes")
        }
        if requireMinimal, let last = bytes.last, last & 0x7f == 0 {
            if bytes.count == 1 || bytes[bytes.count - 2] & 0x80 == 0 {
                throw BitcoinError.invalidScript("non-minimally encoded script number")
            }
        }
        guard let last = bytes.last else {
            value = 0
            return
        }
        var magnitude: Int64 = 0
        for (i, byte) in bytes.enumerated() {
            let b = i == bytes.count - 1 ? byte & 0x7f : byte
            magnitude |= Int64(b) << (8 * Int64(i))
        }
        value = last & 0x80 != 0 ? -magnitude : magnitude
    }
}
