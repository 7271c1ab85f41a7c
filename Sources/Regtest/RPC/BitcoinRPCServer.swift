#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Transport

/// Bitcoin Core's JSON-RPC over HTTP, answered by the hub: POST only, Basic auth, single
/// requests and batches, JSON-RPC 1.0 and 2.0 envelopes with Core's HTTP statuses, and a
/// table of methods. What Core does at each step (and so what this does) is pinned by the
/// v31 fixtures in `Tests/Data/fixtures/bitcoind`.
///
/// The server is the HTTP handler only; `HTTPServer` and a listener supply connections.
public final class BitcoinRPCServer: Sendable {
    public let credentials: HTTPBasicCredentials
    public let methods: [String: RPCMethod]
    private let sleeper: any Sleeper
    private let authFailureDelayMilliseconds: UInt64
    private let clock: @Sendable () -> Int64

    /// - Parameters:
    ///   - methods: the method table; a later method with the same name replaces an earlier one.
    ///   - authFailureDelayMilliseconds: Core waits 250 ms before refusing a wrong password,
    ///     to slow down guessing.
    public init(credentials: HTTPBasicCredentials, methods: [RPCMethod], sleeper: any Sleeper,
                authFailureDelayMilliseconds: UInt64 = 250,
                clock: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) {
        self.credentials = credentials
        var table: [String: RPCMethod] = [:]
        for method in methods { table[method.name] = method }
        self.methods = table
        self.sleeper = sleeper
        self.authFailureDelayMilliseconds = authFailureDelayMilliseconds
        self.clock = clock
    }

    /// The method names served, sorted.
    public var methodNames: [String] { methods.keys.sorted() }

    /// The handler to give `HTTPServer`.
    public var handler: @Sendable (HTTPRequest) async -> HTTPResponse {
        { [self] request in await self.respond(to: request) }
    }

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard request.method == .post else {
            return plain(.methodNotAllowed, body: "JSONRPC server handles only POST requests")
        }
        guard let path = RPCPath(target: request.target) else { return plain(.notFound, body: "") }
        guard let authorization = request.headers.first(name: "authorization") else { return unauthorized() }
        guard isAuthorized(authorization) else {
            try? await sleeper.sleep(milliseconds: authFailureDelayMilliseconds)
            return unauthorized()
        }
        var envelope = JSONRPCEnvelope()
        do throws(RPCError) {
            let body: JSONValue
            do {
                body = try JSONParser.parse(request.body, limits: JSONParser.Limits(maxLength: Int.max, maxDepth: 64))
            } catch {
                throw RPCError.parseError
            }
            switch body {
            case .object:
                let (method, params) = try envelope.parse(body)
                // Legacy requests answer RPC errors with an HTTP error status; 2.0 requests
                // with 200 and the error in the body.
                let reply: OrderedJSON
                if envelope.version == .v2 {
                    reply = await executeCatching(method, params: params, path: path, envelope: envelope)
                } else {
                    reply = envelope.reply(result: try await execute(method, params: params, path: path), error: nil)
                }
                if envelope.isNotification { return HTTPResponse(status: .noContent, headers: ["Date": date]) }
                return json(.ok, reply)
            case .array(let elements):
                // A batch is always 200; each element is answered in its own envelope, and
                // 2.0 notifications get no element.
                var replies: [OrderedJSON] = []
                for element in elements {
                    let reply: OrderedJSON
                    do throws(RPCError) {
                        let (method, params) = try envelope.parse(element)
                        reply = await executeCatching(method, params: params, path: path, envelope: envelope)
                    } catch {
                        reply = envelope.reply(result: nil, error: error)
                    }
                    if !envelope.isNotification { replies.append(reply) }
                }
                return json(.ok, .array(replies))
            default:
                throw RPCError.topLevelParseError
            }
        } catch {
            return json(BitcoinRPCServer.status(for: error), envelope.reply(result: nil, error: error))
        }
    }

    /// Core's `JSONErrorReply`: invalid request 400, unknown method 404, anything else 500.
    static func status(for error: RPCError) -> HTTPStatus {
        switch error.code {
        case RPCError.invalidRequestCode: return .badRequest
        case RPCError.methodNotFoundCode: return .notFound
        default: return .internalServerError
        }
    }

    private func execute(_ name: String, params: JSONValue, path: RPCPath) async throws(RPCError) -> OrderedJSON {
        if WalletMethods.names.contains(name) { throw WalletMethods.error(for: path) }
        guard let method = methods[name] else { throw .methodNotFound }
        return try await method.call(params: params)
    }

    private func executeCatching(_ name: String, params: JSONValue, path: RPCPath,
                                 envelope: JSONRPCEnvelope) async -> OrderedJSON {
        do {
            return envelope.reply(result: try await execute(name, params: params, path: path), error: nil)
        } catch {
            return envelope.reply(result: nil, error: error)
        }
    }

    // MARK: HTTP

    private var date: String { HTTPDate.format(unixTime: clock()) }

    private func json(_ status: HTTPStatus, _ body: OrderedJSON) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json", "Date": date],
                     body: Array((body.compact + "\n").utf8))
    }

    /// libevent's default content type, which Core's non-JSON replies keep.
    private func plain(_ status: HTTPStatus, body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Date": date, "Content-Type": "text/html; charset=ISO-8859-1"],
                     body: Array(body.utf8))
    }

    private func unauthorized() -> HTTPResponse {
        HTTPResponse(status: .unauthorized, headers: ["WWW-Authenticate": "Basic realm=\"jsonrpc\"", "Date": date,
                                                      "Content-Type": "text/html; charset=ISO-8859-1"])
    }

    /// Compares the whole `Authorization` value in constant time, so timing does not
    /// reveal how much of a guess was right.
    private func isAuthorized(_ value: String) -> Bool {
        let expected = Array(credentials.authorizationValue.utf8)
        let given = Array(value.utf8)
        var difference = UInt8(expected.count == given.count ? 0 : 1)
        for index in expected.indices { difference |= expected[index] ^ (index < given.count ? given[index] : 0) }
        return difference == 0
    }
}
