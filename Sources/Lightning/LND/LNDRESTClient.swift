import Bitcoin
import Transport

/// The node's `LightningBackend` over LND's REST API (the gRPC gateway LND serves on
/// `restlisten`), and over the regtest hub, which serves the same API.
///
/// Authentication is LND's: the macaroon's bytes, hex-encoded, in the
/// `Grpc-Metadata-macaroon` header of every request. The caller reads the macaroon file
/// and passes its bytes; this type never logs them (the HTTP layer redacts the header).
///
/// TLS is not supported yet: requests go over plain HTTP, which is safe only on
/// loopback (the hub, or an LND reached through a local TLS-terminating tunnel). A real
/// LND serves REST over TLS only, so pointing this client straight at one fails.
///
/// Use `connect`, which refuses a node on another network before anything else is sent.
public final class LNDRESTClient: LightningBackend {
    public let configuration: Configuration
    /// Short calls (lookup, settle, add invoice, decode): a few kept-alive connections.
    let http: HTTPClient
    /// Long-lived streams (invoice subscriptions, payments), one connection each. Kept apart
    /// from `http` so that streams held open by live swaps can never take the connections a
    /// settle or a lookup needs: a provider that could not settle would lose the payment.
    let streams: HTTPClient
    let sleeper: any Sleeper
    let endpoint: HTTPEndpoint

    /// A client that has not checked the node's network; `connect` is the usual way in.
    public init(configuration: Configuration, sleeper: any Sleeper, connector: @escaping HTTPClient.Connector) {
        self.configuration = configuration
        self.sleeper = sleeper
        self.endpoint = HTTPEndpoint(host: configuration.host, port: configuration.port)
        var headers = HTTPHeaders()
        headers.add(name: "Grpc-Metadata-macaroon", value: configuration.macaroon.hex)
        headers.add(name: "Accept", value: "application/json")
        http = HTTPClient(configuration: HTTPClient.Configuration(timeoutMilliseconds: configuration.requestTimeoutMilliseconds,
                                                                  headers: headers, latency: configuration.latency),
                          sleeper: sleeper, connector: connector)
        streams = HTTPClient(configuration: HTTPClient.Configuration(maxConnectionsPerEndpoint: Self.maxOpenStreams,
                                                                     timeoutMilliseconds: configuration.requestTimeoutMilliseconds,
                                                                     headers: headers),
                             sleeper: sleeper, connector: connector)
    }

    /// Streams open at once (one per live swap or payment); more wait for one to end.
    public static let maxOpenStreams = 256

    /// A client for the node at `configuration`, once the node has answered `getinfo`
    /// and is on `configuration.network`. A node on another network is refused: its
    /// invoices and HTLC heights mean nothing to this node's chain.
    public static func connect(configuration: Configuration, sleeper: any Sleeper,
                               connector: @escaping HTTPClient.Connector) async throws(LightningBackendError) -> LNDRESTClient {
        let client = LNDRESTClient(configuration: configuration, sleeper: sleeper, connector: connector)
        do {
            _ = try await client.checkNetwork()
        } catch {
            await client.shutDown()
            throw error
        }
        return client
    }

    /// Calls `getinfo` and checks the node's chain and network against the configuration.
    @discardableResult
    public func checkNetwork() async throws(LightningBackendError) -> LightningNodeStatus {
        let status = try await info()
        let expected = configuration.network.rawValue
        guard status.chain == "bitcoin", status.network == expected else {
            throw .wrongNetwork(url: url, expected: "bitcoin \(expected)", actual: "\(status.chain) \(status.network)")
        }
        return status
    }

    /// Closes idle connections; later calls fail.
    public func shutDown() async {
        await http.shutDown()
        await streams.shutDown()
    }

    /// `http://host:port`, for messages.
    public var url: String { "http://\(endpoint.hostHeaderDescription)" }

    // MARK: node

    public func info() async throws(LightningBackendError) -> LightningNodeStatus {
        let json = try await call(.get, "/v1/getinfo")
        guard let keyHex = json["identity_pubkey"]?.stringValue, let keyBytes = [UInt8](hex: keyHex),
              let key = try? PublicKey(keyBytes) else {
            throw malformed("getinfo has no valid identity_pubkey")
        }
        guard let chains = json["chains"]?.arrayValue, let first = chains.first,
              let chain = first["chain"]?.stringValue, let network = first["network"]?.stringValue else {
            throw malformed("getinfo has no chains")
        }
        guard let height = LNDJSON.int64(json["block_height"]), let blockHeight = Int(exactly: height) else {
            throw malformed("getinfo has no block_height")
        }
        // The hash is kept only when it reads as one (an empty or odd one is no anchor).
        let blockHash = json["block_hash"]?.stringValue.flatMap { try? BlockHash(hex: $0) }
        return LightningNodeStatus(identityKey: key, alias: json["alias"]?.stringValue ?? "", chain: chain,
                                   network: network, blockHeight: blockHeight, blockHash: blockHash,
                                   syncedToChain: json["synced_to_chain"]?.boolValue ?? false)
    }

    public func channelBalance() async throws(LightningBackendError) -> UInt64 {
        let json = try await call(.get, "/v1/balance/channels")
        guard let msat = LNDJSON.uint64(json["local_balance"]?["msat"]) else {
            throw malformed("balance/channels has no local_balance.msat")
        }
        return msat
    }

    public func spendableBalance() async throws(LightningBackendError) -> UInt64 {
        let json = try await call(.get, "/v1/channels")
        guard case .array(let channels)? = json["channels"] else {
            // LND leaves out an empty repeated field: no channel, nothing to send.
            if json["channels"] == nil { return 0 }
            throw malformed("channels is not a list")
        }
        var largestSat: UInt64 = 0
        for channel in channels where channel["active"]?.boolValue == true {
            guard let local = LNDJSON.uint64(channel["local_balance"] ?? .string("0")),
                  let reserve = LNDJSON.uint64(channel["local_constraints"]?["chan_reserve_sat"]) else {
                throw malformed("a channel has no local_balance or local_constraints.chan_reserve_sat")
            }
            var bandwidth = LNDChannelBandwidth(localSat: local, reserveSat: reserve)
            if channel["initiator"]?.boolValue == true {
                // LND leaves out a zero: a missing commit_fee is none (a missing weight or rate is not).
                guard let weight = LNDJSON.uint64(channel["commit_weight"]), let rate = LNDJSON.uint64(channel["fee_per_kw"]),
                      let fee = LNDJSON.uint64(channel["commit_fee"] ?? .string("0")) else {
                    throw malformed("a channel this node opened has no commit_weight or fee_per_kw")
                }
                bandwidth.funder = LNDChannelBandwidth.Funder(commitFeeSat: fee, commitWeight: weight, feePerKw: rate)
            }
            largestSat = Swift.max(largestSat, bandwidth.spendableSat)
        }
        return largestSat * 1_000
    }

    public func decodeInvoice(_ paymentRequest: String) async throws(LightningBackendError) -> PaymentRequestDetails {
        // A bech32 string is letters and digits only; anything else would change the path.
        guard !paymentRequest.isEmpty,
              paymentRequest.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }) else {
            throw .invalidArgument("a payment request is bech32: letters and digits only")
        }
        let json = try await call(.get, "/v1/payreq/\(paymentRequest)")
        return try LNDRESTClient.paymentRequestDetails(from: json, url: url)
    }

    // MARK: requests

    /// One unary call: the parsed JSON body of a 2xx answer, or the error it carried.
    func call(_ method: HTTPMethod, _ target: String, body: JSONValue? = nil) async throws(LightningBackendError) -> JSONValue {
        var request = HTTPRequest(method: method, target: target)
        if let body {
            request.body = body.canonicalBytes
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response: HTTPResponse
        do {
            response = try await http.send(request, to: endpoint)
        } catch {
            throw unreachable(error)
        }
        guard response.status.isSuccess else {
            throw errorFrom(status: response.status.code, body: response.body)
        }
        do {
            return try LNDJSON.parse(response.body)
        } catch {
            throw malformed("\(target) answered with invalid JSON: \(error)")
        }
    }

    /// Opens a streamed call: the lines of a 2xx answer, or the error it carried.
    func openStream(_ method: HTTPMethod, _ target: String, body: JSONValue? = nil) async throws(LightningBackendError) -> HTTPLineSequence {
        var request = HTTPRequest(method: method, target: target)
        if let body {
            request.body = body.canonicalBytes
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let stream: HTTPLineStream
        do {
            stream = try await streams.stream(request, to: endpoint)
        } catch {
            throw unreachable(error)
        }
        guard stream.response.status.isSuccess else {
            // The error is the body: `{"error": {...}}` for a stream, read whole.
            var body: [UInt8] = []
            do {
                for try await line in stream.lines where body.count < 64 * 1024 { body += line }
            } catch {
                throw .unreachable(url: url, reason: "\(error)")
            }
            throw errorFrom(status: stream.response.status.code, body: body)
        }
        return stream.lines
    }

    /// The `result` of one streamed line, or the error it carries.
    func streamResult(_ line: [UInt8]) throws(LightningBackendError) -> JSONValue {
        let json: JSONValue
        do {
            json = try LNDJSON.parse(line)
        } catch {
            throw malformed("a streamed line is not JSON: \(error)")
        }
        if let result = json["result"] { return result }
        if json["error"] != nil { throw errorFrom(status: 200, body: line) }
        throw malformed("a streamed line has neither result nor error")
    }

    /// Reads LND's error body (`{"code", "message", "details"}`, or the same inside
    /// `{"error": ...}` on a stream). A refused macaroon is recognised by LND's messages,
    /// since LND reports it as code 2 / HTTP 500 like any other error.
    func errorFrom(status: Int, body: [UInt8]) -> LightningBackendError {
        guard let json = try? LNDJSON.parse(body) else {
            // Go's net/http answer to plain HTTP on a TLS port: LND's default REST port.
            if status == 400 && String(decoding: body, as: UTF8.self).contains("Client sent an HTTP request to an HTTPS server") {
                return .unreachable(url: url, reason: "this port serves TLS (LND answered \"Client sent an HTTP request to an HTTPS server\"); "
                                    + "set lnd_tls_cert to LND's tls.cert and lnd_rest_tls=1")
            }
            if status == 401 || status == 403 { return .unauthorized(url: url, message: "HTTP \(status)") }
            return .malformedResponse(url: url, reason: "HTTP \(status) without an LND error body")
        }
        let error = json["error"]?.objectValue.map(JSONValue.object) ?? json
        let message = error["message"]?.stringValue ?? error["error"]?.stringValue ?? ""
        let code = LNDJSON.int64(error["code"]).flatMap { Int(exactly: $0) } ?? LNDStatusCode.unknown.rawValue
        if status == 401 || status == 403 || code == LNDStatusCode.unauthenticated.rawValue
            || code == LNDStatusCode.permissionDenied.rawValue || LNDRESTClient.isMacaroonRefusal(message) {
            return .unauthorized(url: url, message: message.isEmpty ? "HTTP \(status)" : message)
        }
        return .lnd(code: code, message: message, httpStatus: status)
    }

    static func isMacaroonRefusal(_ message: String) -> Bool {
        message.contains("macaroon") || message.hasPrefix("verification failed") || message == LNDStatusCode.permissionDeniedMessage
    }

    /// A request that got no answer: `.connectionRefused` when the connection itself was
    /// refused (the request never left), else `.unreachable` (it may have reached LND).
    func unreachable(_ error: any Error) -> LightningBackendError {
        if let refused = error as? LibUVError, refused.isConnectionRefused {
            return .connectionRefused(url: url, reason: "\(error)")
        }
        return .unreachable(url: url, reason: "\(error)")
    }

    func malformed(_ reason: String) -> LightningBackendError {
        .malformedResponse(url: url, reason: reason)
    }
}

extension HTTPEndpoint {
    /// `host:port` always with the port, IPv6 in brackets: for URLs in messages.
    var hostHeaderDescription: String {
        let name = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(name):\(port)"
    }
}
