import Lightning
import Transport

/// A request's JSON body read the way LND's gateway reads it: a field the message does
/// not have refused (`LNDRequestFields`), absent fields at their defaults, integers as strings or numbers, bytes as base64 in
/// either alphabet. A value of the wrong type is InvalidArgument (HTTP 400), as the
/// gateway's protobuf decoder reports it.
struct LNDRequestBody {
    let fields: [String: JSONValue]

    init(_ bytes: [UInt8], fields known: Set<String>) throws(LNDRPCError) {
        // An empty body is an empty message.
        guard !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
            fields = [:]
            return
        }
        let json: JSONValue
        do {
            json = try LNDJSON.parse(bytes)
        } catch {
            throw LNDRPCError(.invalidArgument, "syntax error: \(error)")
        }
        guard let object = json.objectValue else {
            throw LNDRPCError(.invalidArgument, "the request body must be a JSON object")
        }
        // protojson's refusal, which the gateway answers as InvalidArgument (HTTP 400).
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw LNDRPCError(.invalidArgument, "proto: unknown field \"\(unknown)\"")
        }
        fields = object
    }

    func string(_ name: String) throws(LNDRPCError) -> String {
        guard let value = present(name) else { return "" }
        guard let text = value.stringValue else { throw wrongType(name, "a string") }
        return text
    }

    func uint64(_ name: String) throws(LNDRPCError) -> UInt64 {
        guard let value = present(name) else { return 0 }
        guard let number = LNDJSON.uint64(value) else { throw wrongType(name, "an unsigned integer") }
        return number
    }

    /// An int64 field whose negative values LND refuses further on; read as unsigned here.
    func nonNegativeInt64(_ name: String) throws(LNDRPCError) -> UInt64 {
        guard let value = present(name) else { return 0 }
        guard let number = LNDJSON.int64(value) else { throw wrongType(name, "an integer") }
        guard number >= 0 else { throw LNDRPCError(.unknown, "\(name) must not be negative") }
        return UInt64(number)
    }

    func uint32(_ name: String) throws(LNDRPCError) -> UInt32 {
        guard let value = present(name) else { return 0 }
        guard let number = LNDJSON.int64(value), let fitted = UInt32(exactly: number) else {
            throw wrongType(name, "a 32-bit unsigned integer")
        }
        return fitted
    }

    func bytes(_ name: String) throws(LNDRPCError) -> [UInt8] {
        guard let value = present(name) else { return [] }
        guard let bytes = LNDJSON.bytes(value) else { throw wrongType(name, "base64 bytes") }
        return bytes
    }

    func bool(_ name: String) throws(LNDRPCError) -> Bool {
        guard let value = present(name) else { return false }
        guard let flag = value.boolValue else { throw wrongType(name, "a boolean") }
        return flag
    }

    /// JSON null counts as absent, as in protobuf's JSON mapping.
    private func present(_ name: String) -> JSONValue? {
        guard let value = fields[name], value != .null else { return nil }
        return value
    }

    private func wrongType(_ name: String, _ expected: String) -> LNDRPCError {
        LNDRPCError(.invalidArgument, "proto: invalid value for field \(name): expected \(expected)")
    }
}
