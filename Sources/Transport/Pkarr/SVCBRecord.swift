/// The data of an SVCB or HTTPS record (RFC 9460): a priority (0 is AliasMode), a target
/// name (`.` for "this name itself") and service parameters in ascending key order.
///
/// peernode publishes `_peernode SVCB 1 . port=<peer port>` for its own endpoint, and a
/// Pubky identity that delegates to a node key publishes `_peernode SVCB 0 <node key>.`
/// (pkarr `design/endpoints.md`: a target that is a pkarr key is resolved in turn).
public struct SVCBRecord: Sendable, Hashable {
    public static let mandatoryKey: UInt16 = 0
    public static let alpnKey: UInt16 = 1
    public static let noDefaultALPNKey: UInt16 = 2
    public static let portKey: UInt16 = 3
    public static let ipv4HintKey: UInt16 = 4
    public static let ipv6HintKey: UInt16 = 6

    public struct Parameter: Sendable, Hashable {
        public let key: UInt16
        public let value: [UInt8]

        public init(key: UInt16, value: [UInt8]) {
            self.key = key
            self.value = value
        }
    }

    public let priority: UInt16
    public let target: DNSName
    /// Strictly ascending keys; checked on decode and on `init`.
    public let parameters: [Parameter]

    public init(priority: UInt16, target: DNSName, parameters: [Parameter] = []) throws(PkarrError) {
        try Self.check(parameters)
        self.priority = priority
        self.target = target
        self.parameters = parameters
    }

    /// A ServiceMode record for this name's own endpoint on `port`.
    public static func endpoint(port: UInt16, priority: UInt16 = 1) -> SVCBRecord {
        SVCBRecord(checked: priority, .root, [Parameter(key: portKey, value: [UInt8(port >> 8), UInt8(port & 0xff)])])
    }

    /// An AliasMode record naming another pkarr key as the service's owner.
    public static func alias(to target: DNSName) -> SVCBRecord {
        SVCBRecord(checked: 0, target, [])
    }

    private init(checked priority: UInt16, _ target: DNSName, _ parameters: [Parameter]) {
        self.priority = priority
        self.target = target
        self.parameters = parameters
    }

    public var isAliasMode: Bool { priority == 0 }

    /// The `port` parameter, if present.
    public var port: UInt16? {
        guard let value = parameters.first(where: { $0.key == Self.portKey })?.value else { return nil }
        return UInt16(value[0]) << 8 | UInt16(value[1])
    }

    func encode(into writer: inout DNSWriter) {
        writer.u16(priority)
        writer.name(target, compress: false)
        for parameter in parameters {
            writer.u16(parameter.key)
            writer.u16(UInt16(parameter.value.count))
            writer.append(parameter.value)
        }
    }

    /// Reads the whole RDATA in `reader` up to `end`.
    static func decode(_ reader: inout DNSReader, end: Int, type: String) throws(PkarrError) -> SVCBRecord {
        let priority = try reader.u16("an \(type) priority")
        let target = try reader.name("an \(type) target", compressed: false)
        var parameters: [Parameter] = []
        while reader.position < end {
            let key = try reader.u16("an \(type) parameter key")
            let length = try reader.u16("an \(type) parameter length")
            guard reader.position + Int(length) <= end else { throw .badRecordData(type, "a parameter runs past the record") }
            parameters.append(Parameter(key: key, value: try reader.take(Int(length), "an \(type) parameter")))
        }
        guard reader.position == end else { throw .badRecordData(type, "the target runs past the record") }
        do {
            try check(parameters)
        } catch .badRecordData(_, let reason) {
            throw .badRecordData(type, reason)
        }
        return SVCBRecord(checked: priority, target, parameters)
    }

    /// RFC 9460 2.2 and 7: keys strictly ascending (no repeats), and the values of the keys
    /// this node reads have their sizes.
    private static func check(_ parameters: [Parameter]) throws(PkarrError) {
        var previous: UInt16?
        for parameter in parameters {
            if let previous, parameter.key <= previous {
                throw .badRecordData("SVCB", "parameter keys are not in strictly ascending order")
            }
            previous = parameter.key
            let count = parameter.value.count
            switch parameter.key {
            case portKey where count != 2:
                throw .badRecordData("SVCB", "the port parameter is not 2 bytes")
            case ipv4HintKey where count == 0 || count % 4 != 0:
                throw .badRecordData("SVCB", "the ipv4hint parameter is not a list of addresses")
            case ipv6HintKey where count == 0 || count % 16 != 0:
                throw .badRecordData("SVCB", "the ipv6hint parameter is not a list of addresses")
            case mandatoryKey where count == 0 || count % 2 != 0:
                throw .badRecordData("SVCB", "the mandatory parameter is not a list of keys")
            case noDefaultALPNKey where count != 0:
                throw .badRecordData("SVCB", "the no-default-alpn parameter has a value")
            default:
                continue
            }
        }
    }
}
