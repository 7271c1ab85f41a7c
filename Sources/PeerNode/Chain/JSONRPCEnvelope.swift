import Transport

/// The JSON-RPC envelope spoken with Bitcoin Core: requests in the 1.0 shape
/// (`{"id":7,"jsonrpc":"1.0","method":"getblockcount","params":[]}`), answers read in
/// either shape Core v31 uses.
///
/// - 1.0: `result`, `error` and `id` are always present; an error comes with HTTP 500 (404
///   for an unknown method, 400 for an invalid request), so the status alone does not
///   tell a transport failure from Core refusing the call, and the body must be read.
/// - 2.0: a success has no `error` member, an error no `result` member, both with HTTP 200.
///
/// Pure: bytes in, typed result out, so every fixture can be checked without a socket.
enum JSONRPCEnvelope {
    /// The body of a call. Ids are numbers, increasing per client, so calls can be told
    /// apart in Core's `-debug=rpc` log.
    static func request(method: String, params: [JSONValue], id: UInt64) -> [UInt8] {
        JSONValue.object([
            "jsonrpc": .string("1.0"),
            "id": .integer(id),
            "method": .string(method),
            "params": .array(params),
        ]).canonicalBytes
    }

    /// The call's result, or the typed error Core answered with. `status` is the HTTP
    /// status; 401/403 never reach here (the transport handles credentials).
    ///
    /// The `id` is not checked: HTTP already pairs each answer with its request on the
    /// connection (one exchange at a time, no pipelining), and Core answers a parse error
    /// with `"id": null`. Ids exist for Core's debug log.
    static func response(status: Int, body: [UInt8]) -> Result<JSONValue, ChainBackendError> {
        // A whole block's hex is the largest answer; the HTTP layer already bounded the body.
        let limits = JSONParser.Limits(maxLength: max(body.count, 1), maxDepth: 64)
        guard let value = try? JSONParser.parse(body, limits: limits), case .object(let members) = value else {
            return .failure(.malformedResponse("HTTP \(status) whose body is not a JSON-RPC object"))
        }
        return reply(members, status: status)
    }

    /// The body of a batch: one request per call, in order, with the ids `firstID`,
    /// `firstID + 1`, … Core runs the calls one after another and answers them together.
    static func batchRequest(_ calls: [(method: String, params: [JSONValue])], firstID: UInt64) -> [UInt8] {
        JSONValue.array(calls.enumerated().map { index, call in
            JSONValue.object([
                "jsonrpc": .string("1.0"),
                "id": .integer(firstID &+ UInt64(index)),
                "method": .string(call.method),
                "params": .array(call.params),
            ])
        }).canonicalBytes
    }

    /// Each call's result or error, in the order of the calls of `batchRequest`. Core answers
    /// a batch with HTTP 200 and an array holding one reply per call, each in the shape of a
    /// single answer and with its call's id; the replies are matched by id, not by place.
    /// A body that is one object is Core refusing the whole batch (it could not parse it,
    /// or the HTTP request was wrong): that failure is the batch's.
    static func batchResponse(status: Int, body: [UInt8], firstID: UInt64,
                              count: Int) -> Result<[Result<JSONValue, ChainBackendError>], ChainBackendError> {
        let limits = JSONParser.Limits(maxLength: max(body.count, 1), maxDepth: 64)
        guard let value = try? JSONParser.parse(body, limits: limits) else {
            return .failure(.malformedResponse("HTTP \(status) whose body is not JSON"))
        }
        switch value {
        case .object(let members):
            if case .failure(let error) = reply(members, status: status) { return .failure(error) }
            return .failure(.malformedResponse("HTTP \(status) with one answer to a batch"))
        case .array(let elements):
            guard status == 200 else { return .failure(.malformedResponse("HTTP \(status) with a batch's answers")) }
            var replies = [Result<JSONValue, ChainBackendError>?](repeating: nil, count: count)
            for element in elements {
                guard case .object(let members) = element, let id = members["id"]?.uint64Value,
                      case let index = id &- firstID, index < UInt64(count), replies[Int(index)] == nil else {
                    return .failure(.malformedResponse("a batch's answer with an id no call of the batch has"))
                }
                replies[Int(index)] = reply(members, status: status)
            }
            let answered = replies.compactMap { $0 }
            guard answered.count == count else {
                return .failure(.malformedResponse("a batch's answers leave out \(count - answered.count) of its calls"))
            }
            return .success(answered)
        default:
            return .failure(.malformedResponse("HTTP \(status) whose body is neither a JSON-RPC object nor a batch"))
        }
    }

    /// One answer's members: Core's error, or the result when there is none.
    private static func reply(_ members: [String: JSONValue], status: Int) -> Result<JSONValue, ChainBackendError> {
        if let error = members["error"], error != .null {
            guard let code = error["code"]?.int64Value, let message = error["message"]?.stringValue,
                  let code = Int(exactly: code) else {
                return .failure(.malformedResponse("HTTP \(status) with a JSON-RPC error lacking code or message"))
            }
            return .failure(.rpc(code: code, message: message))
        }
        guard status == 200 else {
            return .failure(.malformedResponse("HTTP \(status) without a JSON-RPC error"))
        }
        guard let result = members["result"] else {
            return .failure(.malformedResponse("JSON-RPC answer without a result"))
        }
        return .success(result)
    }
}
