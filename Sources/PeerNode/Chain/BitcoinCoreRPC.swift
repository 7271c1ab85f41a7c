import Synchronization
import Transport

/// Bitcoin Core's JSON-RPC over HTTP: one `call` per method, Basic authentication from a
/// user and password or the cookie file, and every failure typed:
///
/// - cannot connect, timeout, connection dropped: `.unreachable(url, reason)`;
/// - HTTP 401/403 (after re-reading the cookie once): `.unauthorized(url)`;
/// - a JSON-RPC error, whatever the HTTP status Core sent it with: `.rpc(code, message)`;
/// - anything unreadable: `.malformedResponse`.
///
/// Calls may run concurrently; the HTTP client keeps a small pool of kept-alive
/// connections to Core.
public final class BitcoinCoreRPC: Sendable {
    public let endpoint: BitcoinCoreEndpoint
    private let credentials: BitcoinCoreCredentials
    private let client: HTTPClient
    private let ownsClient: Bool
    private let nextID = Atomic<UInt64>(1)
    /// The cookie as last read; nil until the first call, replaced after a 401.
    private let cookie = Mutex<HTTPBasicCredentials?>(nil)

    /// A client on an existing HTTP client (shared with other backends, or in-memory in tests).
    public init(endpoint: BitcoinCoreEndpoint, credentials: BitcoinCoreCredentials, client: HTTPClient) {
        self.endpoint = endpoint
        self.credentials = credentials
        self.client = client
        self.ownsClient = false
    }

    /// A client with its own HTTP client over TCP on `loop`. `timeoutMilliseconds` bounds
    /// each call; Core answers quickly except for a large block on a slow disk.
    /// `latency`, when given, records every call's duration (the status API's `/metrics`).
    public init(endpoint: BitcoinCoreEndpoint, credentials: BitcoinCoreCredentials, loop: EventLoop,
                timeoutMilliseconds: UInt64 = 30_000, latency: LatencyHistogram? = nil) {
        self.endpoint = endpoint
        self.credentials = credentials
        self.client = HTTPClient(
            configuration: HTTPClient.Configuration(timeoutMilliseconds: timeoutMilliseconds, latency: latency),
            sleeper: LoopSleeper(loop: loop), connector: BitcoinCoreRPC.tcpConnector(loop: loop))
        self.ownsClient = true
    }

    /// Dials TCP on the event loop; the connector `HTTPClient` needs.
    public static func tcpConnector(loop: EventLoop) -> HTTPClient.Connector {
        { host, port in try await TCPConnection.connect(host: host, port: port, loop: loop) }
    }

    /// Closes the connections of an HTTP client this object created; a shared one is left
    /// to its owner.
    public func shutDown() async {
        if ownsClient { await client.shutDown() }
    }

    /// Calls `method` with positional `params` and returns Core's `result` (possibly null).
    public func call(_ method: String, _ params: [JSONValue] = []) async throws(ChainBackendError) -> JSONValue {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let response = try await authorizedPost(JSONRPCEnvelope.request(method: method, params: params, id: id))
        return try JSONRPCEnvelope.response(status: response.status.code, body: response.body).get()
    }

    /// Calls every one of `calls` in one HTTP request (a JSON-RPC batch) and returns each
    /// call's result or Core's error for it, in order. Throws only when the batch as a
    /// whole got no answer (the same failures as `call`). Core runs a batch's calls one
    /// after another; what a batch saves is a round trip and a request per call.
    public func batch(_ calls: [(method: String, params: [JSONValue])]) async throws(ChainBackendError) -> [Result<JSONValue, ChainBackendError>] {
        guard !calls.isEmpty else { return [] }
        let firstID = nextID.wrappingAdd(UInt64(calls.count), ordering: .relaxed).oldValue
        let response = try await authorizedPost(JSONRPCEnvelope.batchRequest(calls, firstID: firstID))
        return try JSONRPCEnvelope.batchResponse(status: response.status.code, body: response.body,
                                                 firstID: firstID, count: calls.count).get()
    }

    /// Posts `body` with the credentials, reading the cookie again once after a refusal.
    private func authorizedPost(_ body: [UInt8]) async throws(ChainBackendError) -> HTTPResponse {
        let used = try credentialsForCall(reload: false)
        var response = try await post(body, credentials: used)
        if HTTPStatusClass.isAuthFailure(response.status.code), case .cookieFile = credentials {
            // Core writes a new cookie at every start: a 401 with the old one is expected
            // after a restart. Core did not run the call, so sending it again is safe.
            let fresh = try credentialsForCall(reload: true)
            if fresh != used { response = try await post(body, credentials: fresh) }
        }
        if HTTPStatusClass.isAuthFailure(response.status.code) { throw .unauthorized(url: endpoint.url) }
        return response
    }

    private func post(_ body: [UInt8], credentials: HTTPBasicCredentials) async throws(ChainBackendError) -> HTTPResponse {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        headers.setBasicAuthorization(credentials)
        let request = HTTPRequest(method: .post, target: endpoint.path, headers: headers, body: body)
        do {
            return try await client.send(request, to: endpoint.httpEndpoint)
        } catch is CancellationError {
            throw .unreachable(url: endpoint.url, reason: "the call was cancelled")
        } catch {
            // LibUVError names the failed call and errno (`ECONNREFUSED`), HTTPError the
            // protocol step; either tells an operator what to fix.
            throw .unreachable(url: endpoint.url, reason: ErrorText.describe(error))
        }
    }

    private func credentialsForCall(reload: Bool) throws(ChainBackendError) -> HTTPBasicCredentials {
        switch credentials {
        case .userPassword(let fixed):
            return fixed
        case .cookieFile(let path):
            if !reload, let cached = cookie.withLock({ $0 }) { return cached }
            do {
                let fresh = try CookieFile.read(path: path)
                cookie.withLock { $0 = fresh }
                return fresh
            } catch {
                // No cookie usually means Core is not running (it deletes the file at exit).
                throw .unreachable(url: endpoint.url, reason: error.reason)
            }
        }
    }
}

/// Status codes the client treats specially.
enum HTTPStatusClass {
    /// Core answers bad credentials with 401, and 403 when `rpcwhitelist` forbids the call.
    static func isAuthFailure(_ code: Int) -> Bool { code == 401 || code == 403 }
}
