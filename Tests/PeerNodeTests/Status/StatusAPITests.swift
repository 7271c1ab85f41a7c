import Foundation
import Lightning
import PeerNode
import Regtest
import TestSupport
import Transport
import XCTest

/// The status API of a provider daemon on the hub (`status_listen`): every endpoint
/// authenticated (bearer token or login cookie), the documented shapes, the token file,
/// and the start-up rules of `status_listen`.
final class StatusAPITests: XCTestCase {
    static let engines = NodeEngines.factory(settings: NodeEngines.Settings(
        followerPollMilliseconds: 200, confirmationWaitMilliseconds: 10_000, giveUpSeconds: 600))

    /// Every route that needs the token, with the members its answer must have.
    static let shapes: [(path: String, keys: [String])] = [
        ("/api/health", ["ok", "checks", "attention"]),
        ("/api/status", ["network", "pubky", "listen", "provider", "tip_height", "wallet", "lightning", "peers",
                         "swaps_in_flight", "started_at", "errors"]),
        ("/api/swaps", ["live", "recent"]),
        ("/api/limits", ["provider", "overall", "per_peer_max", "peers"]),
        ("/api/offers", ["provider", "terms", "offer", "liquidity_sat", "waiting_sat", "fee_rate_sat_kvb"]),
        ("/api/earnings", ["days", "total"]),
    ]

    private func startProvider(_ fixture: DaemonFixture, extra: [String] = ["status_listen=127.0.0.1:0"],
                               log: DaemonLog = .silent) async throws -> (RunningDaemon, String) {
        let (datadir, _) = try await fixture.dataDirectory("prov", config: fixture.hubConfig + ["provider=1"] + extra)
        return (try await fixture.start(datadir, engines: Self.engines, log: log), datadir)
    }

    func testEveryEndpointRefusesWithoutTheTokenAndAnswersWithItsShape() async throws {
        let fixture = try await DaemonFixture()
        let (node, datadir) = try await startProvider(fixture)
        let http = StatusHTTP(port: try XCTUnwrap(node.ready.statusPort), loop: fixture.loop)
        do {
            // The token file: 64 hex digits, mode 0600, made at the first start.
            let token = try StatusHTTP.token(datadir: datadir)
            XCTAssertEqual(token.count, 64)
            XCTAssertTrue(token.allSatisfy { "0123456789abcdef".contains($0) }, token)
            let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: datadir + "/status.token")[.posixPermissions] as? Int)
            XCTAssertEqual(mode, 0o600)

            let wrong = String(token.reversed())
            for path in Self.shapes.map(\.path) + ["/metrics", "/dashboard.js", "/api/nothing"] {
                let none = try await http.get(path)
                XCTAssertEqual(none.status.code, 401, "\(path) without a token")
                XCTAssertEqual(none.headers.first(name: "www-authenticate"), "Bearer realm=\"peernode\"", path)
                let bad = try await http.get(path, bearer: wrong)
                XCTAssertEqual(bad.status.code, 401, "\(path) with a wrong token")
                let short = try await http.get(path, bearer: String(token.prefix(63)))
                XCTAssertEqual(short.status.code, 401, "\(path) with a token one digit short")
                let badCookie = try await http.get(path, cookie: "peernode_status=\(token)")
                XCTAssertEqual(badCookie.status.code, 401, "\(path) with the token as a cookie (no session)")
            }
            for (path, keys) in Self.shapes {
                let body = try await http.json(path, token: token)
                XCTAssertEqual(Set(body.objectValue?.keys.map { $0 } ?? []), Set(keys), path)
            }
            let status = try await http.json("/api/status", token: token)
            XCTAssertEqual(status["network"], .string("regtest"))
            XCTAssertEqual(status["provider"], .bool(true))
            XCTAssertEqual(status["pubky"], .string(node.ready.pubky))
            XCTAssertNotNil(status["tip_height"]?.int64Value)
            XCTAssertEqual(status["errors"], .object([:]))
            let health = try await http.json("/api/health", token: token)
            let names = health["checks"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            XCTAssertTrue(Set(["datadir", "bitcoind", "txindex", "lnd"]).isSubset(of: names), "\(names)")
            // An unfunded provider cannot make an offer: health says so, and what to do.
            let attention = health["attention"]?.arrayValue ?? []
            XCTAssertEqual(attention.first?["kind"], .string("low_liquidity"), "\(health)")
            XCTAssertEqual(health["ok"], .bool(false))
            let limits = try await http.json("/api/limits", token: token)
            XCTAssertEqual(limits["provider"], .bool(true))
            XCTAssertEqual(limits["overall"]?["exposure_sat"], .integer(0))
            XCTAssertEqual(limits["overall"]?["max_exposure_sat"], .integer(10_000_000))
            let offers = try await http.json("/api/offers", token: token)
            XCTAssertEqual(offers["offer"], .null, "no liquidity, no offer")
            XCTAssertEqual(offers["terms"]?["fee_ppm"], .integer(2_000))
            let earnings = try await http.json("/api/earnings", token: token)
            XCTAssertEqual(earnings["days"], .array([]))
            XCTAssertEqual(earnings["total"]?["earned_sat"], .integer(0))
            let metrics = try await http.get("/metrics", bearer: token)
            XCTAssertEqual(metrics.status.code, 200)
            XCTAssertEqual(metrics.headers.first(name: "content-type"), "text/plain; version=0.0.4; charset=utf-8")
            // Read-only: anything but GET and HEAD is refused, and changes nothing.
            let put = try await http.client.send(HTTPRequest(method: .post, target: "/api/status", headers: ["Authorization": "Bearer \(token)"]),
                                                 to: HTTPEndpoint(host: "127.0.0.1", port: http.port))
            XCTAssertEqual(put.status.code, 405)

            // The same token after a restart: a scraper's configuration keeps working.
            try await node.stop()
            let again = try await fixture.start(datadir, engines: Self.engines)
            XCTAssertEqual(try StatusHTTP.token(datadir: datadir), token)
            let http2 = StatusHTTP(port: try XCTUnwrap(again.ready.statusPort), loop: fixture.loop)
            let reread = try await http2.get("/api/status", bearer: token)
            XCTAssertEqual(reread.status.code, 200)

            // Bitcoin Core stops answering: the API still answers, and says so.
            await fixture.hub.rpc.stop()
            let down = try await http2.json("/api/health", token: token)
            XCTAssertEqual(down["ok"], .bool(false))
            let downKinds = down["attention"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } ?? []
            XCTAssertTrue(downKinds.contains("backend_down"), "\(down)")
            let bitcoind = down["checks"]?.arrayValue?.first { $0["name"] == .string("bitcoind") }
            XCTAssertEqual(bitcoind?["status"], .string("fatal"))
            let statusDown = try await http2.json("/api/status", token: token)
            XCTAssertEqual(statusDown["tip_height"], .null)
            XCTAssertNotNil(statusDown["errors"]?["bitcoind"]?.stringValue, "\(statusDown)")
            let metricsDown = try await http2.get("/metrics", bearer: token)
            XCTAssertEqual(metricsDown.status.code, 200, "metrics do not need Bitcoin Core")
            await http2.shutDown()
            try await again.stop()
        } catch {
            try? await node.stop()
            await http.shutDown()
            await fixture.shutDown()
            throw error
        }
        await http.shutDown()
        await fixture.shutDown()
    }

    func testLoginFormTradesTheTokenForAStrictHttpOnlyCookie() async throws {
        let fixture = try await DaemonFixture()
        let (node, datadir) = try await startProvider(fixture)
        let http = StatusHTTP(port: try XCTUnwrap(node.ready.statusPort), loop: fixture.loop)
        do {
            let token = try StatusHTTP.token(datadir: datadir)
            // The page without a session is the login form, and nothing of the node.
            let page = try await http.get("/")
            XCTAssertEqual(page.status.code, 200)
            let form = String(decoding: page.body, as: UTF8.self)
            XCTAssertTrue(form.contains("<form method=\"post\" action=\"/login\">"), form)
            XCTAssertFalse(form.contains(node.ready.pubky))
            let css = try await http.get("/dashboard.css")
            XCTAssertEqual(css.status.code, 200, "the form's style sheet is public")

            let refused = try await http.post("/login", form: "token=\(String(repeating: "0", count: 64))")
            XCTAssertEqual(refused.status.code, 401)
            XCTAssertNil(refused.headers.first(name: "set-cookie"))
            XCTAssertTrue(String(decoding: refused.body, as: UTF8.self).contains("That is not the token"))

            let accepted = try await http.post("/login", form: "token=\(token)")
            XCTAssertEqual(accepted.status.code, 303)
            XCTAssertEqual(accepted.headers.first(name: "location"), "/")
            let cookie = try XCTUnwrap(accepted.headers.first(name: "set-cookie"))
            let attributes = cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertTrue(attributes.contains("HttpOnly"), cookie)
            XCTAssertTrue(attributes.contains("SameSite=Strict"), cookie)
            XCTAssertTrue(attributes.contains("Path=/"), cookie)
            XCTAssertTrue(attributes.contains("Max-Age=900"), cookie)
            let pair = try XCTUnwrap(attributes.first)
            let session = String(pair.dropFirst("peernode_status=".count))
            XCTAssertEqual(session.count, 64)
            XCTAssertNotEqual(session, token, "the cookie is a session of its own, never the token")

            let dashboard = try await http.get("/", cookie: pair)
            XCTAssertEqual(dashboard.status.code, 200)
            XCTAssertTrue(String(decoding: dashboard.body, as: UTF8.self).contains("<script src=\"/dashboard.js\" defer></script>"))
            for path in Self.shapes.map(\.path) + ["/metrics", "/dashboard.js"] {
                let answer = try await http.get(path, cookie: "theme=dark; " + pair)
                XCTAssertEqual(answer.status.code, 200, path)
            }
            let forged = try await http.get("/api/status", cookie: "peernode_status=" + String(session.reversed()))
            XCTAssertEqual(forged.status.code, 401)

            // Logging out ends the session.
            var logout = HTTPRequest(method: .post, target: "/logout")
            logout.headers.add(name: "Cookie", value: pair)
            let out = try await http.client.send(logout, to: HTTPEndpoint(host: "127.0.0.1", port: http.port))
            XCTAssertEqual(out.status.code, 303)
            let afterLogout = try await http.get("/api/status", cookie: pair)
            XCTAssertEqual(afterLogout.status.code, 401)
            try await node.stop()
        } catch {
            try? await node.stop()
            await http.shutDown()
            await fixture.shutDown()
            throw error
        }
        await http.shutDown()
        await fixture.shutDown()
    }

    func testStatusListenOffByDefaultBadValueStopsStartAndANonLoopbackAddressWarns() async throws {
        let fixture = try await DaemonFixture()
        do {
            // Off by default: no port, no token file.
            let (plain, plainDir) = try await startProvider(fixture, extra: [])
            XCTAssertNil(plain.ready.statusPort)
            XCTAssertFalse(FileManager.default.fileExists(atPath: plainDir + "/status.token"))
            try await plain.stop()

            // A value without a port stops the start, naming the key and what it takes.
            for (value, words) in [("localhost", "no port"), ("127.0.0.1:99999", "the port is not a number")] {
                do {
                    _ = try await fixture.start(plainDir, overrides: [ConfigEntry(key: "status_listen", value: value, origin: "command line")],
                                                engines: Self.engines)
                    XCTFail("status_listen=\(value) started")
                } catch {
                    let text = "\(error)"
                    XCTAssertTrue(text.contains("status_listen=\(value)"), text)
                    XCTAssertTrue(text.contains(words), text)
                    XCTAssertTrue(text.contains("allowed: host:port"), text)
                }
            }
            // A port already taken stops the start, saying which key to change.
            let blocker = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: fixture.loop)
            do {
                _ = try await fixture.start(plainDir, overrides: [ConfigEntry(key: "status_listen", value: "127.0.0.1:\(blocker.port)",
                                                                              origin: "command line")], engines: Self.engines)
                XCTFail("a taken port started")
            } catch {
                let text = "\(error)"
                XCTAssertTrue(text.contains("status_listen"), text)
                XCTAssertTrue(text.contains("cannot listen on 127.0.0.1:\(blocker.port)"), text)
            }
            await blocker.close()

            // Any address the operator writes is served, and one off loopback is warned about.
            let lines = LinesSeen()
            let exposed = try await fixture.start(plainDir, overrides: [ConfigEntry(key: "status_listen", value: "0.0.0.0:0",
                                                                                    origin: "command line")],
                                                  engines: Self.engines, log: DaemonLog { lines.append($0) })
            let warning = lines.all.first { $0.contains("status API listens on 0.0.0.0:") }
            XCTAssertNotNil(warning, "\(lines.all)")
            XCTAssertEqual(warning.map(LogLevel.of), .warn)
            XCTAssertTrue(lines.all.contains { $0.hasPrefix("status API on http://0.0.0.0:") })
            try await exposed.stop()
            let local = LinesSeen()
            let quiet = try await fixture.start(plainDir, overrides: [ConfigEntry(key: "status_listen", value: "127.0.0.1:0",
                                                                                  origin: "command line")],
                                                engines: Self.engines, log: DaemonLog { local.append($0) })
            XCTAssertFalse(local.all.contains { $0.contains("not a loopback address") }, "\(local.all)")
            try await quiet.stop()
        } catch {
            await fixture.shutDown()
            throw error
        }
        await fixture.shutDown()
    }
}

final class LinesSeen: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
