import Foundation
import PeerNode
import TestSupport
import Transport
import XCTest

/// A strict CLI (issue 14): options a command does not take are refused by name (they
/// were accepted and ignored: `pay carol 20000 --to <addr> --fee-rate 50` paid carol at
/// the default fee), typos get the closest command, exit codes are the documented ones,
/// and `--json` answers every outcome with one JSON object on stdout.
final class CLIStrictTests: XCTestCase {
    private func run(_ arguments: [String]) throws -> ProductOutcome {
        try runProduct(try productExecutable("peernode"), arguments)
    }

    private func object(_ text: String, _ context: String, file: StaticString = #filePath, line: UInt = #line) -> [String: Any]? {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            XCTFail("\(context): stdout is not one JSON object: \(text)", file: file, line: line)
            return nil
        }
        return parsed
    }

    func testRefusalsExitWithTheDocumentedCodeAndSayWhatToDo() throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let cases: [([String], Int32, String)] = [
            (["pay", "carol", "20000", "--to", "bcrt1qxyz"], 2, "pay has no option --to; see `peernode pay --help`"),
            (["pay", "carol", "20000", "--fee-rate", "50"], 2, "pay has no option --fee-rate; see `peernode pay --help`"),
            (["status", "--network", "testnet"], 2, "status has no option --network; see `peernode status --help`"),
            (["swap-out", "1000", "--contact", "bob"], 2, "swap-out has no option --contact"),
            (["wallet", "balance", "--refresh"], 2, "wallet balance has no option --refresh"),
            (["contacts", "list", "--limit=3"], 2, "contacts list has no option --limit"),
            (["sttaus"], 2, "unknown command \"sttaus\"; did you mean `peernode status`?"),
            (["contacts", "ad", "x"], 2, "unknown subcommand \"ad\"; did you mean `peernode contacts add`?"),
            (["wallet", "sned"], 2, "did you mean `peernode wallet send`?"),
            (["report", "--limit", "3"], 2, "report has no option --limit"),
            (["report", "--since", "yesterday"], 2,
             "--since yesterday is not a date: give a UTC day as YYYY-MM-DD (for example 2026-12-01)"),
            (["report", "--since", "2026-02-30"], 2, "--since 2026-02-30 is not a date"),
            (["status"], 4, "the data directory \(root)/missing does not exist; create it with `peernode init --datadir \(root)/missing`"),
            (["pay", "carol", "1000"], 4, "`peernode init --datadir \(root)/missing`"),
        ]
        for (arguments, status, expected) in cases {
            let outcome = try run(arguments + ["--datadir", root + "/missing"])
            XCTAssertEqual(outcome.status, status, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains(expected), "\(arguments): \(outcome.stderr)")
            XCTAssertEqual(outcome.stdout, "", "\(arguments): only --json writes errors to stdout")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/missing"), "a refusal creates nothing")

        // Money moves only when confirmed: without a terminal, --yes is required (exit 2,
        // before the daemon is even asked).
        for (arguments, expected) in [
            (["pay", "carol", "1000"], "pay moves money: run it on a terminal to confirm, or pass --yes; nothing was paid"),
            (["swap-out", "1000"], "swap-out moves money"),
            (["wallet", "send", "bcrt1qxyz", "1000"], "wallet send moves money"),
            (["pay", "carol", "1000", "--yes", "--max-fee", "1.5"], "--max-fee must be a whole number of satoshis, got \"1.5\""),
            (["pay", "carol", "1000", "--yes", "--max-fee", "10", "--quote", "q1"], "--max-fee checks a fresh quote"),
            (["swap-out", "1000", "--yes", "--max-fee", "ten"], "--max-fee must be a whole number of satoshis, got \"ten\""),
            (["pay", "carol", "1000", "--yes", "--from", "bank"], "--from must be savings (the on-chain wallet) or spending"),
            (["max", "--from", "both"], "--from must be savings (the on-chain wallet) or spending"),
            (["quote", "1000", "--max-fee", "10"], "quote has no option --max-fee"),
            (["swap-out", "1000", "--from", "savings"], "swap-out has no option --from"),
        ] {
            let outcome = try run(arguments + ["--datadir", root])
            XCTAssertEqual(outcome.status, 2, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains(expected), "\(arguments): \(outcome.stderr)")
        }
        // Counts are not amounts; fee rates take decimals.
        for (arguments, status, expected) in [
            (["swaps", "--limit", "x"], Int32(2), "--limit must be a whole number above 0, got \"x\""),
            (["recover", "--gap-limit", "0"], 2, "--gap-limit must be a whole number above 0"),
            (["wallet", "send", "bcrt1qxyz", "1000", "--yes", "--fee-rate", "1.2345"], 2, "--fee-rate must be a rate in sat/vB such as 2 or 1.5"),
            (["wallet", "send", "bcrt1qxyz", "1000", "--yes", "--fee-rate", "1.5"], 3, "the daemon is not running"),
        ] {
            let outcome = try run(arguments + ["--datadir", root])
            XCTAssertEqual(outcome.status, status, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains(expected), "\(arguments): \(outcome.stderr)")
            XCTAssertFalse(outcome.stderr.contains("satoshis"), "\(arguments): \(outcome.stderr)")
        }
        let made = try run(["init", "--datadir", root + "/main"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertTrue(made.stdout.contains("(mainnet, the default; --network testnet|signet|regtest for another)"), made.stdout)

        let confirmed = try run(["pay", "carol", "1000", "--yes", "--datadir", root])
        XCTAssertEqual(confirmed.status, 3, "with --yes it goes as far as the daemon: \(confirmed.stderr)")

        let version = try run(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.hasPrefix("peernode "), version.stdout)
        let help = try run(["--help"])
        XCTAssertTrue(help.stdout.contains("5 detached"), "the help documents the detach exit code: \(help.stdout)")
    }

    /// On a terminal, a command that moves money asks only once it can show what it costs:
    /// with the daemon down there is nothing to show, so it says so (exit 3) and asks
    /// nothing. (With a daemon, the prompt and its answers: `WalletSendTests`.) The terminal
    /// is util-linux `script`'s pseudo-terminal.
    func testOnATerminalWithoutTheDaemonNothingIsAsked() throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let peernode = try productExecutable("peernode").path
        for command in ["wallet send bcrt1qxyz 1000", "pay carol 1000", "swap-out 1000"] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qec", "\(peernode) \(command) --datadir \(root)", "/dev/null"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
            Thread.sleep(forTimeInterval: 1)
            // The command may have exited already (nothing to ask): a closed pipe is fine.
            try? input.fileHandleForWriting.write(contentsOf: Data("y\n".utf8))
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 3, printed)
            XCTAssertFalse(printed.contains("[y/N]"), "\(command): \(printed)")
            XCTAssertTrue(printed.contains("the daemon is not running"), "\(command): \(printed)")
        }
    }

    /// Every command's every outcome under --json is one JSON object on stdout; failures
    /// are `{"error": {"code", "message"}}`.
    func testJSONOutputParsesForEveryCommandSuccessAndError() async throws {
        let fixture = try await DaemonFixture()
        let (datadir, _) = try await fixture.dataDirectory("json")
        let other = NodeIdentity(seed: try NodeSeed(bytes: [UInt8](repeating: 7, count: 32))).pubky.z32
        let address = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080"
        let commands: [[String]] = [
            ["status"], ["contacts", "add", "x", other, "127.0.0.1:1"], ["contacts", "add", "y", other, "127.0.0.1:1"],
            ["contacts", "rename", "x", "y"], ["contacts", "list"], ["contacts", "remove", "nobody"], ["contacts", "remove", "x"],
            ["wallet", "balance"], ["wallet", "address"], ["wallet", "send", address, "1000", "--yes"], ["offers"], ["swaps"],
            ["swap", "show", "nope"], ["swap", "watch", "nope"], ["swap", "claim", "nope"], ["swap", "refund", "nope"], ["recover", "--from-height", "0"],
            ["pay", "x", "1000", "--yes"], ["swap-out", "1000", "--yes"], ["quote", "1000"], ["max"],
        ]
        func check(_ arguments: [String], expectDaemon: Bool) throws {
            let outcome = try run(arguments + ["--datadir", datadir, "--json"])
            guard let parsed = object(outcome.stdout, arguments.joined(separator: " ")) else { return }
            if outcome.status == 0 {
                XCTAssertNil(parsed["error"], "\(arguments)")
            } else {
                let error = parsed["error"] as? [String: Any]
                XCTAssertNotNil(error?["code"] as? String, "\(arguments): \(outcome.stdout)")
                XCTAssertNotNil(error?["message"] as? String, "\(arguments): \(outcome.stdout)")
                if !expectDaemon { XCTAssertEqual(error?["code"] as? String, "daemon_not_running", "\(arguments)") }
            }
        }
        // No daemon yet: exit 3, and still JSON.
        for arguments in commands { try check(arguments, expectDaemon: false) }
        // Usage errors and local commands.
        for arguments in [["pay"], ["pay", "x", "1000", "--to", "y"], ["frobnicate"], ["help"], ["help", "pay"], ["--version"]] {
            try check(arguments, expectDaemon: true)
        }
        let made = try run(["init", "--datadir", datadir, "--json"])
        XCTAssertEqual(made.status, 4)
        XCTAssertEqual((object(made.stdout, "init again")?["error"] as? [String: Any])?["code"] as? String, "seed_exists")

        let node = try await fixture.start(datadir)
        // recover without --json: labelled lines, not the raw JSON it once printed.
        let recovered = try run(["recover", "--from-height", "0", "--datadir", datadir])
        XCTAssertEqual(recovered.status, 0, recovered.stderr)
        XCTAssertTrue(recovered.stdout.contains("from_height: 0"), recovered.stdout)
        XCTAssertTrue(recovered.stdout.contains("found: none"), recovered.stdout)
        XCTAssertFalse(recovered.stdout.contains("{") || recovered.stdout.contains("\":"), recovered.stdout)
        var succeeded = 0
        for arguments in commands {
            try check(arguments, expectDaemon: true)
            if try run(arguments + ["--datadir", datadir, "--json"]).status == 0 { succeeded += 1 }
        }
        XCTAssertGreaterThan(succeeded, 6, "most read-only commands succeed against a daemon")
        let stop = try run(["stop", "--datadir", datadir, "--json"])
        XCTAssertEqual(stop.status, 0, stop.stderr)
        XCTAssertEqual(object(stop.stdout, "stop")?["stopping"] as? Bool, true)
        try await node.task.value
        await fixture.shutDown()
    }
}
