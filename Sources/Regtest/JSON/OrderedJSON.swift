/// A JSON value whose object members keep the order they were added in, so a reply can
/// list its members exactly as Bitcoin Core does (clients and fixtures compare bytes).
///
/// Numbers are kept as the literal text to write: integers come from Swift integers,
/// amounts from `amount(_:)` (exact satoshi formatting), and anything else is given as
/// text, so no value passes through a floating-point conversion the writer cannot control.
public enum OrderedJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number's literal text, already in JSON's number grammar.
    case number(String)
    case string(String)
    case array([OrderedJSON])
    case object([Member])

    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: OrderedJSON

        public init(_ key: String, _ value: OrderedJSON) {
            self.key = key
            self.value = value
        }
    }

    /// An integer.
    public static func int<I: BinaryInteger>(_ value: I) -> OrderedJSON { .number(String(value)) }

    /// Satoshis as BTC with exactly eight decimals (`0.00010000`), as Core's `ValueFromAmount`.
    public static func amount(_ satoshis: Int64) -> OrderedJSON { .number(CoreAmount.format(satoshis)) }

    /// An object whose members keep the literal's order.
    public static func object(_ members: KeyValuePairs<String, OrderedJSON>) -> OrderedJSON {
        .object(members.map { Member($0.key, $0.value) })
    }

    /// The member `key` of an object (the first one with that key).
    public subscript(key: String) -> OrderedJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The text of a string value.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// The keys of an object, in order; empty for anything else.
    public var keys: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.key)
    }
}

extension OrderedJSON: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(String(value)) }
    public init(arrayLiteral elements: OrderedJSON...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
}

/// Builds an object member by member, for replies whose members depend on the case
/// (`previousblockhash` only off genesis, `fee` only with undo data, ...).
public struct OrderedJSONObject: Sendable {
    public private(set) var members: [OrderedJSON.Member] = []

    public init() {}

    public mutating func add(_ key: String, _ value: OrderedJSON) {
        members.append(OrderedJSON.Member(key, value))
    }

    public mutating func add(contentsOf other: OrderedJSON) {
        if case .object(let more) = other { members += more }
    }

    public var json: OrderedJSON { .object(members) }
}
