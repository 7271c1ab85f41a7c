import Transport

/// The parts of a JSON-RPC request that shape its reply, parsed as Core's
/// `JSONRPCRequest::parse` does. Core reuses one request object across a batch, so a
/// batch element that fails before its own `id` is read is answered with the previous
/// element's id and version; `parse` keeps that behaviour by updating in place.
struct JSONRPCEnvelope {
    enum Version { case legacy, v2 }

    /// Nil when the request has no `id` member (an explicit `null` is a value).
    var id: JSONValue?
    var version = Version.legacy

    /// A 2.0 request without an `id` is a notification: executed, never answered.
    var isNotification: Bool { id == nil && version == .v2 }

    /// Reads id, version, method and params, in Core's order, so an error thrown midway
    /// is answered with whatever was read before it.
    mutating func parse(_ request: JSONValue) throws(RPCError) -> (method: String, params: JSONValue) {
        guard case .object(let members) = request else { throw .invalidRequest("Invalid Request object") }
        id = members["id"]
        version = .legacy
        if let declared = members["jsonrpc"], declared != .null {
            guard case .string(let text) = declared else { throw .invalidRequest("jsonrpc field must be a string") }
            // Some old documentation put "1.0" in requests; Core accepts it as legacy.
            switch text {
            case "1.0": version = .legacy
            case "2.0": version = .v2
            default: throw .invalidRequest("JSON-RPC version not supported")
            }
        }
        guard let method = members["method"], method != .null else { throw .invalidRequest("Missing method") }
        guard case .string(let name) = method else { throw .invalidRequest("Method must be a string") }
        let params = members["params"] ?? .null
        switch params {
        case .array, .object: return (name, params)
        case .null: return (name, .array([]))
        default: throw .invalidRequest("Params must be an array or object")
        }
    }

    /// Core's `JSONRPCReplyObj`: 2.0 replies carry `jsonrpc` and leave out `error` on
    /// success and `result` on failure; legacy replies always carry both.
    func reply(result: OrderedJSON?, error: RPCError?) -> OrderedJSON {
        var reply = OrderedJSONObject()
        if version == .v2 { reply.add("jsonrpc", "2.0") }
        if version == .legacy || error == nil { reply.add("result", result ?? .null) }
        if version == .legacy || error != nil { reply.add("error", error?.json ?? .null) }
        reply.add("id", id.map(JSONRPCEnvelope.echo) ?? .null)
        return reply.json
    }

    /// The request's id as it is written back: numbers keep their text, objects (which
    /// the parser does not keep ordered) come back with sorted keys.
    static func echo(_ value: JSONValue) -> OrderedJSON {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let text): return .number(text)
        case .string(let text): return .string(text)
        case .array(let elements): return .array(elements.map(echo))
        case .object(let members):
            return .object(members.keys.sorted().map { OrderedJSON.Member($0, echo(members[$0]!)) })
        }
    }
}
