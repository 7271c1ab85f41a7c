import Foundation
import PeerNode
import TestSupport
import Transport
import XCTest

/// `wallet send` shows the exact fee (issue 14): the prompt and the result name the fee of
/// the transaction broadcast, in sat and sat/vB, as the hub's mempool counts it; a send
/// whose fee changed after it was confirmed sends nothing.
final class WalletSendTests: XCTestCase {
    private static let destination = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"

    func testThePromptAndTheResultNameTheFeeOfTheTransactionSent() async throws {
        let fixture = try await DaemonFixture()
        let (datadir, _) = try await fixture.dataDirectory("send")
        let node = try await fixture.start(datadir)
        // Three coins: each send below spends a confirmed one (a client's wallet does not
        // spend its unconfirmed change).
        for _ in 0..<3 {
            let fresh = try await node.result("wallet.address")
            let funding = try XCTUnwrap(fresh["address"]?.stringValue)
            _ = try await fixture.rpc.call("hub_fund", [.string(funding), .number("0.5")])
        }
        let peernode = try productExecutable("peernode").path
        let send = "\(peernode) wallet send \(Self.destination) 100000 --fee-rate 2.5 --datadir \(datadir)"

        // "n": asked with the fee, nothing sent.
        let declined = try await terminal(send, answer: "n")
        XCTAssertEqual(declined.status, 1, declined.printed)
        let shown = try XCTUnwrap(Self.shownFee(declined.printed), declined.printed)
        let afterDecline = try await mempoolCount(fixture)
        XCTAssertEqual(afterDecline, 0, "declined: nothing sent")

        // "y": the transaction in the mempool pays exactly the fee shown.
        let confirmed = try await terminal(send, answer: "y")
        print("$ peernode wallet send \(Self.destination) 100000 --fee-rate 2.5   (on a terminal, answered y)\n" + confirmed.printed)
        XCTAssertEqual(confirmed.status, 0, confirmed.printed)
        XCTAssertEqual(Self.shownFee(confirmed.printed)?.sat, shown.sat, confirmed.printed)
        let txid = try XCTUnwrap(Self.field("txid", in: confirmed.printed), confirmed.printed)
        let entry = try await mempoolEntry(fixture, txid)
        XCTAssertEqual(entry.feeSat, shown.sat, "the fee shown is the fee paid: \(confirmed.printed)")
        XCTAssertEqual(entry.vsize, shown.vsize)
        XCTAssertEqual(shown.rate, Self.rate(feeSat: entry.feeSat, vsize: entry.vsize))
        XCTAssertTrue(confirmed.printed.contains("fee:   \(Self.grouped(entry.feeSat)) sat (\(shown.rate) sat/vB, \(entry.vsize) vB)"),
                      "the result says the fee too: \(confirmed.printed)")

        // --yes --json: `fee_sat`, `vsize` and `fee_rate_sat_vb` of the transaction itself.
        let scripted = try await runCLI(["wallet", "send", Self.destination, "50000", "--yes", "--json", "--datadir", datadir])
        XCTAssertEqual(scripted.status, 0, scripted.stderr)
        let result = try XCTUnwrap(try? JSONSerialization.jsonObject(with: Data(scripted.stdout.utf8)) as? [String: Any])
        let second = try await mempoolEntry(fixture, try XCTUnwrap(result["txid"] as? String))
        XCTAssertEqual((result["fee_sat"] as? NSNumber)?.int64Value, second.feeSat, scripted.stdout)
        XCTAssertEqual((result["vsize"] as? NSNumber)?.intValue, second.vsize, scripted.stdout)
        XCTAssertEqual((result["total_sat"] as? NSNumber)?.int64Value, 50_000 + second.feeSat, scripted.stdout)
        XCTAssertTrue(scripted.stdout.contains("\"fee_rate_sat_vb\":\(Self.rate(feeSat: second.feeSat, vsize: second.vsize))"),
                      scripted.stdout)

        // A preview sends nothing; a send whose fee is no longer the one confirmed sends nothing.
        let args: [String: JSONValue] = ["address": .string(Self.destination), "amount_sat": .integer(30_000),
                                         "fee_rate_sat_vb": .number("2")]
        var previewArgs = args
        previewArgs["preview"] = .bool(true)
        let preview = try await node.result("wallet.send", previewArgs)
        XCTAssertNil(preview["txid"])
        let previewFee = try XCTUnwrap(preview["fee_sat"]?.int64Value)
        let afterPreview = try await mempoolCount(fixture)
        XCTAssertEqual(afterPreview, 2, "a preview sends nothing")
        var stale = args
        stale["expected_fee_sat"] = .integer(previewFee - 1)
        let refused = try await node.call("wallet.send", stale)
        XCTAssertEqual(refused.failureCode, "failed")
        XCTAssertEqual(refused.failureMessage, "the fee would now be \(previewFee) sat, not the \(previewFee - 1) sat confirmed "
                       + "(the wallet's coins changed); nothing was sent: run the command again to see the new fee")
        let afterRefusal = try await mempoolCount(fixture)
        XCTAssertEqual(afterRefusal, 2, "nothing sent")
        var current = args
        current["expected_fee_sat"] = .integer(previewFee)
        let sent = try await node.result("wallet.send", current)
        XCTAssertEqual(sent["fee_sat"], .integer(previewFee), "the coins refused above were released and used again")
        let afterSend = try await mempoolCount(fixture)
        XCTAssertEqual(afterSend, 3)

        try await node.stop()
        await fixture.shutDown()
    }

    // MARK: helpers

    /// The fee, rate and vsize in the prompt: "with a fee of 1,234 sat (2.503 sat/vB, 493 vB)".
    private static func shownFee(_ printed: String) -> (sat: Int64, rate: String, vsize: Int)? {
        guard let start = printed.range(of: "with a fee of ") else { return nil }
        let rest = printed[start.upperBound...]
        let words = rest.split(separator: " ", maxSplits: 6)
        guard words.count >= 6, words[1] == "sat", let sat = Int64(words[0].replacingOccurrences(of: ",", with: "")),
              words[3] == "sat/vB,", let vsize = Int(words[4]) else { return nil }
        return (sat, String(words[2].dropFirst()), vsize)
    }

    private static func field(_ name: String, in printed: String) -> String? {
        printed.split(whereSeparator: \.isNewline).lazy.compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix(name + ":") else { return nil }
            return trimmed.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
        }.first
    }

    /// fee / vsize with 3 decimals, rounded down.
    private static func rate(feeSat: Int64, vsize: Int) -> String {
        let perKvB = feeSat * 1_000 / Int64(vsize)
        let fraction = String(perKvB % 1_000)
        return "\(perKvB / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    private static func grouped(_ value: Int64) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    private func mempoolCount(_ fixture: DaemonFixture) async throws -> Int {
        let mempool = try await fixture.rpc.call("getrawmempool")
        return try XCTUnwrap(mempool.arrayValue).count
    }

    /// The hub's (Core's) `getmempoolentry`: the fee in sat and the vsize.
    private func mempoolEntry(_ fixture: DaemonFixture, _ txid: String) async throws -> (feeSat: Int64, vsize: Int) {
        let entry = try await fixture.rpc.call("getmempoolentry", [.string(txid)])
        let btc = try XCTUnwrap(entry["fees"]?["base"].flatMap { value -> String? in
            if case .number(let text) = value { return text }
            return nil
        }, "no fee in \(entry)")
        let parts = btc.split(separator: ".", omittingEmptySubsequences: false)
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        let sat = try XCTUnwrap(Int64(String(parts[0]) + fraction + String(repeating: "0", count: 8 - fraction.count)))
        return (sat, try XCTUnwrap(entry["vsize"]?.int64Value.map(Int.init)))
    }

    /// The command on a pseudo-terminal (util-linux `script`), `answer` typed at its prompt.
    private func terminal(_ command: String, answer: String) async throws -> (status: Int32, printed: String) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
                    process.arguments = ["-qec", command, "/dev/null"]
                    let input = Pipe()
                    let output = Pipe()
                    process.standardInput = input
                    process.standardOutput = output
                    process.standardError = output
                    try process.run()
                    Thread.sleep(forTimeInterval: 1)
                    try? input.fileHandleForWriting.write(contentsOf: Data((answer + "\n").utf8))
                    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    process.waitUntilExit()
                    return (process.terminationStatus, printed)
                })
            }
        }
    }

    private func runCLI(_ arguments: [String]) async throws -> ProductOutcome {
        let executable = try productExecutable("peernode")
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runProduct(executable, arguments) })
            }
        }
    }
}
