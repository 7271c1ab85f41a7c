import PeerNode
import XCTest

final class BitcoinCoreEndpointTests: XCTestCase {
    func testURLsParse() throws {
        let plain = try XCTUnwrap(BitcoinCoreEndpoint(url: "http://127.0.0.1:18443"))
        XCTAssertEqual(plain, BitcoinCoreEndpoint(host: "127.0.0.1", port: 18443, path: "/"))
        XCTAssertEqual(plain.url, "http://127.0.0.1:18443/")
        let wallet = try XCTUnwrap(BitcoinCoreEndpoint(url: "http://localhost:8332/wallet/w"))
        XCTAssertEqual(wallet.path, "/wallet/w")
        let v6 = try XCTUnwrap(BitcoinCoreEndpoint(url: "[::1]:38332"))
        XCTAssertEqual(v6.host, "::1")
        XCTAssertEqual(v6.url, "http://[::1]:38332/")
        XCTAssertEqual(BitcoinCoreEndpoint(url: "127.0.0.1:18443")?.port, 18443)
    }

    func testURLsWithoutPortOrWithTLSAreRefused() {
        for url in ["https://127.0.0.1:8332", "http://127.0.0.1", "http://:8332", "http://h:0", "http://h:70000", "[::1"] {
            XCTAssertNil(BitcoinCoreEndpoint(url: url), url)
        }
    }

    func testDefaultPortsPerChain() {
        XCTAssertEqual(BitcoinCoreEndpoint.defaultPort(forChain: "main"), 8332)
        XCTAssertEqual(BitcoinCoreEndpoint.defaultPort(forChain: "testnet4"), 48332)
        XCTAssertEqual(BitcoinCoreEndpoint.defaultPort(forChain: "regtest"), 18443)
        XCTAssertNil(BitcoinCoreEndpoint.defaultPort(forChain: "other"))
    }
}
