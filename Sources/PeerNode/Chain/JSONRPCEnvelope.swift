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
