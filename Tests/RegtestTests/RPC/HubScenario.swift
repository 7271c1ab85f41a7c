import Bitcoin
import Foundation
import Regtest
import TestSupport
import Transport
import XCTest

/// A hub chain with Core v31's relay policy behind an in-process RPC server whose
/// credentials are the fixtures' (`u`/`p`), with the transactions the fixtures sent
/// rebuilt from the test wallets, and a map from the fixtures' identifiers to the hub's.
final class HubScenario {
    let chain: RegtestChain
    let hub: HubChain
    let server: BitcoinRPCServer
    let wallet = TestWallet(seed: 0x42)
    let other = TestWallet(seed: 0x43)
    /// Fixture text -> hub text: raw transactions first, then txids, wtxids and block hashes.
    private(set) var replacements: [(from: String, to: String)] = []

    static let credentials = HTTPBasicCredentials(user: "u", password: "p")

    init() throws {
        _ = try makeKernelVerifier()
        chain = try RegtestChain(policy: .coreV31Defaults)
        hub = HubChain(chain: chain, policy: .coreV31Defaults, sleeper: TaskSleeper())
        server = BitcoinRPCServer(credentials: HubScenario.credentials, methods: BitcoinRPCMethods.all(hub),
                                  sleeper: TaskSleeper(), authFailureDelayMilliseconds: 1)
    }

    func close() { chain.close() }

    // MARK: identifiers

    func map(_ from: String, to: String) {
        guard from != to, !replacements.contains(where: { $0.from == from }) else { return }
        replacements.append((from, to))
        // Longer texts (raw transactions) are replaced before the ids they contain.
        replacements.sort { $0.from.count > $1.from.count }
    }

    /// Maps a fixture's transaction to the hub's equivalent: hex, txid, wtxid and the txids
    /// of the coins it spends.
    func map(fixtureTransaction hex: String, to ours: Transaction) throws {
        let theirs = try Transaction(hex: hex)
        map(hex, to: ours.serialized.hex)
        map(theirs.txid.hex, to: ours.txid.hex)
        map(theirs.wtxid.hex, to: ours.wtxid.hex)
        for (input, ourInput) in zip(theirs.inputs, ours.inputs) {
            map(input.previousOutput.txid.hex, to: ourInput.previousOutput.txid.hex)
        }
    }

    func translate(_ text: String) -> String {
        var result = text
        for replacement in replacements { result = result.replacingOccurrences(of: replacement.from, with: replacement.to) }
        return result
    }

    // MARK: requests

    func request(body: String, method: HTTPMethod = .post, target: String = "/",
                 auth: HTTPBasicCredentials? = HubScenario.credentials) -> HTTPRequest {
        var headers: HTTPHeaders = ["Content-Type": "text/plain"]
        if let auth { headers.setBasicAuthorization(auth) }
        return HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8))
    }

    /// Calls a method in-process and returns its `result`, failing on an RPC error.
    @discardableResult
    func call(_ method: String, _ params: String = "[]", file: StaticString = #filePath, line: UInt = #line) async throws -> OrderedJSON {
        let response = await server.respond(to: request(body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\(method)\",\"params\":\(params)}"))
        let reply = try OrderedJSONParser.parse(String(decoding: response.body, as: UTF8.self))
        XCTAssertNil(reply["error"], "\(method) failed: \(reply.compact)", file: file, line: line)
        return reply["result"] ?? .null
    }

    // MARK: chain shapes, as the fixtures' README describes them

    func coin(atHeight height: Int) throws -> (outpoint: OutPoint, value: Int64) { try coinbase(of: chain, atHeight: height) }

    /// `<251> OP_CHECKLOCKTIMEVERIFY OP_DROP OP_TRUE`, the fixtures' CLTV witness script.
    let cltvScript = Script([.pushNumber(251), .checkLockTimeVerify, .drop, .number(1)])
    var cltvOutput: Script { Address.p2wsh(scriptHash: SHA256.hash(cltvScript.bytes)).script }

    /// 200 blocks to the wallet, then block 201 with one segwit spend (1 BTC to `other`).
    private(set) var confirmedSpend: Transaction!
    func buildHeight201() throws {
        try chain.mine(200, to: wallet.script)
        let coin = try coin(atHeight: 90)
        confirmedSpend = try wallet.spend([coin], to: [TransactionOutput(value: 100_000_000, scriptPubKey: other.script),
                                                       TransactionOutput(value: coin.value - 100_000_000 - 2_820,
                                                                         scriptPubKey: wallet.script)], lockTime: 200)
        try chain.submit(confirmedSpend)
        try chain.mine(1, to: wallet.script)
    }

    /// Block 202, holding a transaction that funds the CLTV P2WSH output at index 1.
    private(set) var cltvFunding: Transaction!
    func buildHeight202() throws {
        let coin = try coin(atHeight: 91)
        cltvFunding = try wallet.spend([coin], to: [TransactionOutput(value: coin.value - 100_000_000 - 10_000, scriptPubKey: wallet.script),
                                                    TransactionOutput(value: 100_000_000, scriptPubKey: cltvOutput)])
        try chain.submit(cltvFunding)
        try chain.mine(1, to: wallet.script)
    }
}
