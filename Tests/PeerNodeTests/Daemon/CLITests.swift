import Foundation
import PeerNode
import TestSupport
import Transport
import XCTest

/// The `peernode` binary as a user runs it: help, usage errors (exit 2), a command with
/// no daemon (exit 3, naming the socket), config errors (exit 4, naming the key), and a
/// real `peernode run` against the hub answering `peernode status` and stopping on
/// SIGTERM.
final class CLITests: XCTestCase {
    private func run(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> ProductOutcome {
        try runProduct(try productExecutable("peernode", file: file, line: line), arguments)
    }

    func testCLIHelpForEveryCommand() throws {
        let top = try run(["--help"])
        XCTAssertEqual(top.status, 0)
        XCTAssertTrue(top.stdout.contains("usage: peernode <command>"))
        XCTAssertTrue(top.stdout.contains("exit codes: 0 ok, 1 the command failed, 2 usage error"))
        for command in ["init", "run", "status", "stop", "contacts add", "contacts rename", "contacts list", "contacts remove", "wallet balance",
                        "wallet address", "wallet send", "offers", "swaps", "swap show", "swap watch", "swap claim", "swap refund", "pay",
                        "swap-out", "swap-in", "quote", "max", "recover"] {
            XCTAssertTrue(top.stdout.contains("  \(command) "), command)
            let help = try run(command.split(separator: " ").map(String.init) + ["--help"])
            XCTAssertEqual(help.status, 0, command)
            XCTAssertTrue(help.stdout.hasPrefix("usage: peernode \(command)"), "\(command): \(help.stdout)")
        }
        let config = try run(["help", "config"])
        XCTAssertEqual(config.status, 0)
        for key in ConfigKey.names { XCTAssertTrue(config.stdout.contains(key), key) }
    }

    func testCLIUsageErrorsExitTwoAndChangeNothing() throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let cases: [([String], String)] = [
            ([], "no command given"),
            (["frobnicate"], "unknown command \"frobnicate\""),
            (["pay", "bob"], "missing <sats>"),
            (["pay", "bob", "12x"], "must be a whole number of satoshis"),
            (["pay", "bob", "0"], "must be a whole number of satoshis"),
            (["contacts"], "missing subcommand"),
            (["contacts", "add", "bob", "pk", "localhost"], "must end with a port"),
            (["status", "extra"], "unexpected argument"),
            (["status", "--bogus"], "status has no option --bogus; see `peernode status --help`"),
            (["init", "--network", "moon"], "--network must be"),
            (["wallet", "send", "addr"], "missing <sats>"),
            (["pay", "bob", "1000", "--contract-type", "p2sh"], "--contract-type must be one of taproot_boltz, p2wsh_v2, got \"p2sh\""),
            (["pay", "bob", "1000", "--contract-type", "p2wsh"], "--contract-type p2wsh is retired"),
            (["quote", "1000", "--contract-type=segwit"], "--contract-type must be one of"),
            (["quote", "1000", "--quote", "q1"], "quote has no option --quote; see `peernode quote --help`"),
            (["swap-out", "1000", "--quote", "q1"], "swap-out has no option --quote; see `peernode swap-out --help`"),
            (["pay", "bob", "1000", "--quote="], "--quote needs the quote id"),
            (["swap-in"], "missing <sats>"),
            (["swap-in", "0"], "must be a whole number of satoshis"),
            (["swap-in", "1000", "--to", "x"], "swap-in has no option --to; see `peernode swap-in --help`"),
        ]
        for (arguments, expected) in cases {
            let outcome = try run(arguments + ["--datadir", root + "/d"])
            XCTAssertEqual(outcome.status, 2, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains(expected), "\(arguments): \(outcome.stderr)")
            XCTAssertEqual(outcome.stdout, "", "\(arguments)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/d"), "a usage error creates nothing")
    }

    func testCLIWithoutADaemonExitsThreeNamingTheSocket() throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let outcome = try run(["status", "--datadir", root])
        XCTAssertEqual(outcome.status, 3, outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("\(root)/peernode.sock"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("peernode run --datadir \(root)"), outcome.stderr)
        let custom = try run(["wallet", "balance", "--socket", root + "/other.sock"])
        XCTAssertEqual(custom.status, 3)
        XCTAssertTrue(custom.stderr.contains("\(root)/other.sock"), custom.stderr)
    }

    /// `recover`'s options parse in both spellings (they once fell through as unknown
    /// options, so `recover --from-height 0` was a usage error): with no daemon the command
    /// gets as far as the socket (exit 3); a bad value is still a usage error (exit 2).
    func testCLIRecoverOptionsParseInBothSpellings() throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let contract = root + "/contract.json"
        XCTAssertTrue(FileManager.default.createFile(atPath: contract, contents: Data("{\"swap_index\": 0}".utf8)))
        for arguments in [["--from-height", "0", "--gap-limit", "5"], ["--from-height=12", "--gap-limit=3"],
                          ["--contract", "@" + contract], ["--contract={}"]] {
            let outcome = try run(["recover"] + arguments + ["--datadir", root])
            XCTAssertEqual(outcome.status, 3, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains("\(root)/peernode.sock"), "\(arguments): \(outcome.stderr)")
        }
        for (arguments, expected) in [(["--from-height", "-1"], "must be a block height"),
                                      (["--gap-limit", "x"], "must be a whole number"),
                                      (["--contract", "not json"], "--contract is not JSON")] {
            let outcome = try run(["recover"] + arguments + ["--datadir", root])
            XCTAssertEqual(outcome.status, 2, "\(arguments): \(outcome.stderr)")
            XCTAssertTrue(outcome.stderr.contains(expected), "\(arguments): \(outcome.stderr)")
        }
    }

    func testCLIInitAndConfigErrorsExitFour() throws {
        let root = try DaemonFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let datadir = root + "/node"
        let made = try run(["init", "--datadir", datadir, "--network", "regtest", "--json"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let printed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        let seed = try Data(contentsOf: URL(fileURLWithPath: datadir + "/seed"))
        XCTAssertEqual(printed["pubky"] as? String, NodeIdentity(seed: try NodeSeed(bytes: Array(seed))).pubky.z32)
        XCTAssertFalse(made.stdout.contains(seed.map { String(format: "%02x", $0) }.joined()), "the seed is never printed")

        let again = try run(["init", "--datadir", datadir])
        XCTAssertEqual(again.status, 4)
        XCTAssertTrue(again.stderr.contains("refusing to overwrite"), again.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: datadir + "/seed")), seed)

        // The template has no credentials yet: run names the missing key.
        let missing = try run(["run", "--datadir", datadir])
        XCTAssertEqual(missing.status, 4)
        XCTAssertTrue(missing.stderr.contains("bitcoind_rpc_cookie"), missing.stderr)
        let typo = try run(["run", "--datadir", datadir, "--fee_pmm=3"])
        XCTAssertEqual(typo.status, 4)
        XCTAssertTrue(typo.stderr.contains("did you mean fee_ppm?"), typo.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: datadir + "/peernode.sock"))
    }

    func testCLIRunServesStatusAndStopsOnSIGTERM() async throws {
        let fixture = try await DaemonFixture()
        let (datadir, pubky) = try await fixture.dataDirectory("cli")
        let process = Process()
        process.executableURL = try productExecutable("peernode")
        process.arguments = ["run", "--datadir", datadir]
        let err = Pipe()
        process.standardError = err
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let socket = datadir + "/peernode.sock"
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: socket) {
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: socket), "the daemon created its socket")

        let status = try run(["status", "--datadir", datadir])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("network:"), status.stdout)
        XCTAssertTrue(status.stdout.contains(pubky.z32), status.stdout)
        // LND's local balance of the 500,000 sat channel the node opened: less the
        // commitment fee and the anchors.
        XCTAssertTrue(status.stdout.contains("496,530 sat"), status.stdout)
        let json = try run(["status", "--datadir", datadir, "--json"])
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(parsed["network"] as? String, "regtest")
        let pay = try run(["pay", "bob", "20000", "--yes", "--datadir", datadir])
        XCTAssertEqual(pay.status, 1)
        // `peernode run` wires the engines: the command reaches the client engine's checks.
        XCTAssertTrue(pay.stderr.contains("no contact named or with pubky \"bob\""), pay.stderr)
        XCTAssertTrue(status.stdout.contains("client wired"), status.stdout)
        let remove = try run(["contacts", "remove", "nobody", "--datadir", datadir])
        XCTAssertEqual(remove.status, 1)
        XCTAssertTrue(remove.stderr.contains("no contact"), remove.stderr)

        process.terminate() // SIGTERM
        for _ in 0..<200 where process.isRunning { try await Task.sleep(nanoseconds: 50_000_000) }
        XCTAssertFalse(process.isRunning, "stopped within 10 s of SIGTERM")
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket))
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(log.contains("stopped: store"), log)
        XCTAssertFalse(log.contains(DaemonFixture.credentials.password), "the RPC password is never logged")
        await fixture.shutDown()
    }
}
