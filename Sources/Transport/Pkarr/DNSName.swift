/// A DNS name as a list of labels, lower-cased (names compare case-insensitively). The
/// root is no labels. Only names a pkarr zone can sensibly hold are representable: labels
/// of 1 to 63 printable ASCII bytes other than the dot, 255 bytes at most in wire form.
public struct DNSName: Sendable, Hashable, CustomStringConvertible {
    public static let maxWireLength = 255
    public static let maxLabelLength = 63

    public let labels: [String]

    public static let root = DNSName(checkedLabels: [])

    /// From dotted text (`_peernode.<z32>`, a trailing dot allowed; `.` is the root).
    public init(_ text: String) throws(PkarrError) {
        var trimmed = Substring(text)
        if trimmed.hasSuffix(".") { trimmed = trimmed.dropLast() }
        if trimmed.isEmpty {
            self = .root
            return
        }
        var labels: [String] = []
        for label in trimmed.split(separator: ".", omittingEmptySubsequences: false) {
            labels.append(try Self.checkedLabel(Array(label.utf8)))
        }
        try self.init(labels: labels)
    }

    public init(labels: [String]) throws(PkarrError) {
        let checked = try labels.map { label throws(PkarrError) -> String in try Self.checkedLabel(Array(label.utf8)) }
        guard Self.wireLength(checked) <= Self.maxWireLength else { throw .nameTooLong }
        self.init(checkedLabels: checked)
    }

    init(checkedLabels: [String]) {
        labels = checkedLabels
    }

    /// `label.self`: a name one level below this one.
    public func child(_ label: String) throws(PkarrError) -> DNSName {
        try DNSName(labels: [label] + labels)
    }

    /// True when this name is `zone` or below it.
    public func isWithin(_ zone: DNSName) -> Bool {
        labels.count >= zone.labels.count && Array(labels.suffix(zone.labels.count)) == zone.labels
    }

    /// This name relative to `zone` (`@` for the zone itself), or the full name with a
    /// trailing dot when it lies outside: the zone-file form.
    public func relative(to zone: DNSName) -> String {
        guard isWithin(zone) else { return description + "." }
        let inner = labels.dropLast(zone.labels.count)
        return inner.isEmpty ? "@" : inner.joined(separator: ".")
    }

    /// Dotted, without the trailing dot; the root is `.`.
    public var description: String { labels.isEmpty ? "." : labels.joined(separator: ".") }

    static func wireLength(_ labels: [String]) -> Int {
        labels.reduce(1) { $0 + 1 + $1.utf8.count }
    }

    /// A label as read from the wire or typed: 1 to 63 bytes of printable ASCII without the
    /// dot, upper case folded to lower.
    static func checkedLabel(_ bytes: some Collection<UInt8>) throws(PkarrError) -> String {
        guard !bytes.isEmpty else { throw .badLabel("empty") }
        guard bytes.count <= maxLabelLength else { throw .badLabel("longer than \(maxLabelLength) bytes") }
        var lowered: [UInt8] = []
        lowered.reserveCapacity(bytes.count)
        for byte in bytes {
            guard (0x21...0x7e).contains(byte), byte != UInt8(ascii: ".") else {
                throw .badLabel("a byte that is not printable ASCII")
            }
            lowered.append((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte)
        }
        return String(decoding: lowered, as: UTF8.self)
    }
}
