import Foundation
import Synchronization
import Transport

/// A loopback HTTP server answering every request with the status and exact body of the
/// current fixture, as Core sent them, and remembering what the client sent.
final class FixtureServer: Sendable {
    struct Answer: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: String
    }

    struct Received: Sendable {
        let method: String?
        let params: [JSONValue]?
        let jsonrpc: String?
        let authorization: String?
        let target: String
    }

    /// What the handler reads and writes, shared with the test.
    private final class State: Sendable {
        let answer = Mutex(Answer(status: 200, headers: [], body: ""))
        /// Answers by JSON-RPC method, before `answer` (`serve(byMethod:)`).
        let byMethod = Mutex<[String: Answer]>([:])
        let received = Mutex<[Received]>([])
        /// When set, requests without exactly this Authorization value get Core's 401.
        let requiredAuthorization = Mutex<String?>(nil)
    }

    let listener: TCPListener
    private let state = State()
    private let task: Task<Void, Never>

    private init(listener: TCPListener, loop: EventLoop) {
        self.listener = listener
        let state = self.state
        let server = HTTPServer(sleeper: LoopSleeper(loop: loop)) { request in
            FixtureServer.respond(to: request, state: state)
        }
        task = Task {
            await withTaskGroup(of: Void.self) { group in
                while let connection = try? await listener.accept() {
                    group.addTask { await server.serve(connection: connection) }
                }
            }
        }
    }

    static func start(loop: EventLoop) async throws -> FixtureServer {
        FixtureServer(listener: try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop), loop: loop)
    }

    var port: Int { listener.port }

    func serve(_ fixture: CoreFixture) {
        state.answer.withLock { $0 = Answer(status: fixture.httpStatus, headers: fixture.responseHeaders, body: fixture.responseBodyRaw) }
    }

    /// Each fixture answers the calls of its own method (a call that takes two methods).
    func serve(byMethod fixtures: [CoreFixture]) {
        state.byMethod.withLock { answers in
            for fixture in fixtures {
                guard let method = fixture.method else { continue }
                answers[method] = Answer(status: fixture.httpStatus, headers: fixture.responseHeaders, body: fixture.responseBodyRaw)
            }
        }
    }

    func require(authorization: String?) {
        state.requiredAuthorization.withLock { $0 = authorization }
    }

    var requests: [Received] { state.received.withLock { $0 } }

    func stop() async {
        await listener.close()
        await task.value
    }

    private static func respond(to request: HTTPRequest, state: State) -> HTTPResponse {
        let authorization = request.headers.first(name: "authorization")
        let body = try? JSONParser.parse(request.body, limits: JSONParser.Limits(maxLength: 1 << 24, maxDepth: 16))
        state.received.withLock {
            $0.append(Received(method: body?["method"]?.stringValue, params: body?["params"]?.arrayValue,
                               jsonrpc: body?["jsonrpc"]?.stringValue, authorization: authorization,
                               target: request.target))
        }
        if let expected = state.requiredAuthorization.withLock({ $0 }), authorization != expected {
            // Core's answer to bad credentials: 401, empty body.
            return HTTPResponse(status: .unauthorized,
                                headers: ["WWW-Authenticate": "Basic realm=\"jsonrpc\""], body: [])
        }
        let method = body?["method"]?.stringValue
        let current = method.flatMap { name in state.byMethod.withLock { $0[name] } } ?? state.answer.withLock { $0 }
        var headers = HTTPHeaders()
        for (name, value) in current.headers where name.lowercased() != "content-length" && name.lowercased() != "date" {
            headers.add(name: name, value: value)
        }
        return HTTPResponse(status: HTTPStatus(code: current.status), headers: headers, body: Array(current.body.utf8))
    }
}
