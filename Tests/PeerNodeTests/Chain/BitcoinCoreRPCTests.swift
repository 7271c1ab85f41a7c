import Foundation
import PeerNode
import Transport
import XCTest

/// The transport's own behaviour: the cookie file and its rotation, an unreachable backend.
final class BitcoinCoreRPCTests: XCTestCase {
    private func temporaryCookie(_ content: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("peernode-cookie-\(UUID().uuidString)")
        try Data(content.utf8).write(to: url)
        return url
    }

    private func basic(_ userPassword: String) -> String { "Basic " + Data(userPassword.utf8).base64EncodedString() }

    func testTheCookieIsReReadAfterCoreRestartsWithANewOne() async throws {
        let cookie = try temporaryCookie("__cookie__:aaaa\n")
        defer { try? FileManager.default.removeItem(at: cookie) }
        try await withFixtureBackend(credentials: .cookieFile(path: cookie.path)) { backend, server in
            server.serve(try CoreFixture.load("getblockcount"))
            server.require(authorization: basic("__cookie__:aaaa"))
            let first = try await backend.blockCount()
            XCTAssertEqual(first, 201)

            // Core restarted: a new cookie on disk, the old one refused.
            try Data("__cookie__:bbbb".utf8).write(to: cookie)
            server.require(authorization: basic("__cookie__:bbbb"))
            let before = server.requests.count
            let second = try await backend.blockCount()
            XCTAssertEqual(second, 201)
            XCTAssertEqual(server.requests.dropFirst(before).map(\.authorization),
                           [basic("__cookie__:aaaa"), basic("__cookie__:bbbb")], "one 401, then the new cookie")
        }
    }

    func testAnUnchangedCookieThatIsRefusedIsUnauthorized() async throws {
        let cookie = try temporaryCookie("__cookie__:aaaa")
        defer { try? FileManager.default.removeItem(at: cookie) }
        try await withFixtureBackend(credentials: .cookieFile(path: cookie.path)) { backend, server in
            server.serve(try CoreFixture.load("getblockcount"))
            server.require(authorization: basic("__cookie__:other"))
            do throws(ChainBackendError) {
                _ = try await backend.blockCount()
                XCTFail("a refused cookie was accepted")
            } catch {
                XCTAssertEqual(error, .unauthorized(url: backend.rpc.endpoint.url))
            }
        }
    }

    func testAMissingCookieFileSaysWhichURLAndWhichFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-cookie-\(UUID().uuidString)").path
        try await withFixtureBackend(credentials: .cookieFile(path: path)) { backend, server in
            server.serve(try CoreFixture.load("getblockcount"))
            do throws(ChainBackendError) {
                _ = try await backend.blockCount()
                XCTFail("a call without a cookie succeeded")
            } catch {
                guard case .unreachable(let url, let reason) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(url, backend.rpc.endpoint.url)
                XCTAssertTrue(reason.contains(path), reason)
                XCTAssertTrue(server.requests.isEmpty, "nothing was sent without credentials")
            }
        }
    }

    /// A closed port: the error names the URL and the refusal.
    func testAnUnreachableBackendNamesTheURLAndWhy() async throws {
        let loop = try EventLoop()
        let listener = try await TCPListener.bind(host: "127.0.0.1", port: 0, loop: loop)
        let port = listener.port
        await listener.close()
        let rpc = BitcoinCoreRPC(endpoint: BitcoinCoreEndpoint(host: "127.0.0.1", port: port),
                                 credentials: .user("u", password: "p"), loop: loop)
        let backend = BitcoinCoreBackend(rpc: rpc, network: .regtest)
        do throws(ChainBackendError) {
            _ = try await backend.tip()
            XCTFail("a closed port answered")
        } catch {
            guard case .unreachable(let url, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(url, "http://127.0.0.1:\(port)/")
            XCTAssertTrue(reason.contains("ECONNREFUSED"), reason)
            XCTAssertTrue(error.description.contains("http://127.0.0.1:\(port)/"), error.description)
        }
        await rpc.shutDown()
        await loop.shutdown()
    }
}
