import Bitcoin
import Regtest
import TestSupport
import XCTest

/// `gettxspendingprevout`'s refusals, each Core v31's code and message, and its options:
/// `mempool_only=true` hides a confirmed spend, `return_spending_tx` adds the raw spend.
final class SpendingPrevoutRPCTests: XCTestCase {
    private var scenario: HubScenario!

    override func setUpWithError() throws { scenario = try HubScenario() }
    override func tearDown() { scenario?.close() }

    /// The error member of the reply to `params`.
    private func error(_ params: String) async throws -> OrderedJSON {
        let body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"gettxspendingprevout\",\"params\":\(params)}"
        let response = await scenario.server.respond(to: scenario.request(body: body))
        let reply = try OrderedJSONParser.parse(String(decoding: response.body, as: UTF8.self))
        return try XCTUnwrap(reply["error"], reply.compact)
    }

    func testBadOutputsAndOptionsAreRefusedWithCoresErrors() async throws {
        let txid = String(repeating: "ab", count: 32)
        let cases: [(String, Int, String)] = [
            ("[[]]", -8, "Invalid parameter, outputs are missing"),
            ("[[{\"txid\":\"\(txid)\",\"vout\":-1}]]", -8, "Invalid parameter, vout cannot be negative"),
            ("[[{\"txid\":\"\(txid)\"}]]", -3, "Missing vout"),
            ("[[{\"txid\":\"\(txid)\",\"vout\":\"0\"}]]", -3, "JSON value of type string for field vout is not of expected type number"),
            ("[[{\"txid\":\"\(txid)\",\"vout\":0,\"n\":1}]]", -3, "Unexpected key n"),
            ("[[{\"txid\":\"zz\",\"vout\":0}]]", -8, "txid must be of length 64 (not 2, for 'zz')"),
            ("[[{\"txid\":\"\(txid)\",\"vout\":0}],{\"mempool_only\":1}]", -3,
             "JSON value of type number for field mempool_only is not of expected type bool"),
            ("[[{\"txid\":\"\(txid)\",\"vout\":0}],{\"include_mempool\":true}]", -3, "Unexpected key include_mempool"),
            ("[[5]]", -1, "JSON value of type number is not of expected type object"),
        ]
        for (params, code, message) in cases {
            let error = try await error(params)
            XCTAssertEqual(error["code"], .int(code), params)
            XCTAssertEqual(error["message"]?.stringValue, message, params)
        }
    }

    func testMempoolOnlyHidesAConfirmedSpendAndReturnSpendingTxAddsIt() async throws {
        let wallet = scenario.wallet
        try scenario.chain.mine(101, to: wallet.script)
        let coin = try scenario.coin(atHeight: 1)
        let spend = try wallet.spend(coin.outpoint, value: coin.value, fee: 10_000)
        try scenario.chain.submit(spend)
        let block = try XCTUnwrap(scenario.chain.mine(1, to: wallet.script).first)
        let outpoint = "[{\"txid\":\"\(coin.outpoint.txid.hex)\",\"vout\":0}]"

        let hidden = try await scenario.call("gettxspendingprevout", "[\(outpoint),{\"mempool_only\":true}]")
        XCTAssertEqual(hidden.compact, "[{\"txid\":\"\(coin.outpoint.txid.hex)\",\"vout\":0}]")
        let full = try await scenario.call("gettxspendingprevout", "[\(outpoint),{\"return_spending_tx\":true}]")
        XCTAssertEqual(full.compact, "[{\"txid\":\"\(coin.outpoint.txid.hex)\",\"vout\":0,\"spendingtxid\":\"\(spend.txid.hex)\","
            + "\"spendingtx\":\"\(spend.serialized.hex)\",\"blockhash\":\"\(block.hex)\"}]")
    }
}
