/// Header fields in the order they were added. Names compare case-insensitively (ASCII,
/// RFC 9110 5.1); a name may appear several times and every value is kept, because
/// framing checks (two differing Content-Lengths) depend on seeing all of them.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral,
    CustomStringConvertible
{
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    public init() {
        fields = []
    }

    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Adds a field after the existing ones, keeping any with the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field with this name, then adds one with the value.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    public mutating func remove(name: String) {
        fields.removeAll { HTTPHeaders.namesMatch($0.name, name) }
    }

    /// Every value of the fields with this name, in order.
    public subscript(name: String) -> [String] {
        fields.filter { HTTPHeaders.namesMatch($0.name, name) }.map(\.value)
    }

    public func first(name: String) -> String? {
        fields.first { HTTPHeaders.namesMatch($0.name, name) }?.value
    }

    public func contains(name: String) -> Bool {
        fields.contains { HTTPHeaders.namesMatch($0.name, name) }
    }

    /// The comma-separated list elements of every field with this name, trimmed and
    /// lowercased: how `Connection` and `Transfer-Encoding` are read (RFC 9110 5.6.1).
    func tokens(name: String) -> [String] {
        var result: [String] = []
        for value in self[name] {
            for element in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let trimmed = HTTPHeaders.trimmingWhitespace(element)
                if !trimmed.isEmpty { result.append(HTTPHeaders.lowercased(trimmed)) }
            }
        }
        return result
    }

    /// Values of these headers are credentials; `description` never prints them, so a
    /// logged request cannot leak a password, cookie or macaroon.
    static let sensitiveNames = ["authorization", "proxy-authorization", "cookie", "set-cookie",
                                 "grpc-metadata-macaroon"]

    public var description: String {
        let rendered = fields.map { field -> String in
            let hidden = HTTPHeaders.sensitiveNames.contains { HTTPHeaders.namesMatch($0, field.name) }
            return "\(field.name): \(hidden ? "<redacted>" : field.value)"
        }
        return "[" + rendered.joined(separator: ", ") + "]"
    }

    static func namesMatch(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        for (p, q) in zip(x, y) where lowerASCII(p) != lowerASCII(q) { return false }
        return true
    }

    private static func lowerASCII(_ byte: UInt8) -> UInt8 {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
    }

    private static func lowercased<C: Collection<UInt8>>(_ bytes: C) -> String {
        String(decoding: bytes.map(lowerASCII), as: UTF8.self)
    }

    private static func trimmingWhitespace(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }
}
