/// A BIP32 derivation path such as `m/84'/0'/0'/0/5`: child indices from the master key,
/// hardened ones carrying the 0x80000000 bit.
public struct DerivationPath: Sendable, Hashable, CustomStringConvertible {
    public static let hardenedOffset: UInt32 = 0x8000_0000

    public let indices: [UInt32]

    public init(indices: [UInt32]) { self.indices = indices }

    /// Parses `m`, `m/0'/1/2h`, `m/0H` (the apostrophe, `h` and `H` all mark hardened).
    /// Each index must be a decimal number below 2^31.
    public init(_ string: String) throws {
        var components = string.split(separator: "/", omittingEmptySubsequences: false)
        guard components.first == "m" else {
            throw BitcoinError.invalidExtendedKey("a derivation path starts with \"m\"")
        }
        components.removeFirst()
        indices = try components.map { component in
            var digits = Substring(component)
            var hardened = false
            if let last = digits.last, last == "'" || last == "h" || last == "H" {
                hardened = true
                digits = digits.dropLast()
            }
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let value = UInt32(digits), value < Self.hardenedOffset else {
                throw BitcoinError.invalidExtendedKey("derivation path component \"\(component)\" is not an index below 2^31")
            }
            return hardened ? value | Self.hardenedOffset : value
        }
    }

    /// The path in apostrophe notation, e.g. `m/0'/1`.
    public var description: String {
        (["m"] + indices.map { index in
            index >= Self.hardenedOffset ? "\(index - Self.hardenedOffset)'" : "\(index)"
        }).joined(separator: "/")
    }

    /// The path one step further down.
    public func appending(_ index: UInt32) -> DerivationPath { DerivationPath(indices: indices + [index]) }
}
