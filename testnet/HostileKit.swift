#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// `peernode-adversary` as the runner drives it: a Lightning node of its own on the hub
/// (`hub_ln_addnode`, its macaroon written as LND writes one), and one run per attack,
/// its JSON report on stdout and its progress in `<run dir>/<name>-<attack>.err`.
/// The kit links the project's libraries; the runner still links none.
final class HostileKit {
    let name: String
    private let net: Testnet
    private let lndPort: Int64
    private let macaroonPath: String
    /// The hub's tls.cert for the kit's LND node; nil when it serves plain HTTP.
    private let tlsCertificatePath: String?

    init(_ net: Testnet, name: String = "mallory", lightningSat: Int64) throws(Failure) {
        guard FileManager.default.isExecutableFile(atPath: net.binaries.adversary) else {
            throw Failure("\(net.binaries.adversary) is missing: build it with `swift build --product peernode-adversary` "
                + "(or `make testnet`), or point --bin at the directory holding it")
        }
        self.net = net
        self.name = name
        let lightning = try net.hub.rpc.call("hub_ln_addnode", [name, lightningSat])
        guard let ln = JSON.object(lightning), let port = JSON.int(ln["rest_port"]), let macaroon = JSON.string(ln["macaroon_hex"]),
              let bytes = Self.bytes(hex: macaroon) else {
            throw Failure("hub_ln_addnode \(name): no rest_port or macaroon_hex in \(JSON.line(lightning).prefix(300))")
        }
        lndPort = port
        tlsCertificatePath = JSON.string(ln["tls_cert_path"])
        macaroonPath = net.supervisor.runDirectory + "/\(name).macaroon"
        guard FileManager.default.createFile(atPath: macaroonPath, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw Failure("cannot write \(macaroonPath)")
        }
    }

    /// The kit's command line against `provider` (a fresh identity each run).
    func arguments(_ attack: String, against provider: Node, amountSat: Int64) throws(Failure) -> [String] {
        guard let address = provider.listen else { throw Failure("\(provider.name) has no address yet (never ran)") }
        let rpc = net.hub.rpc
        return ["--attack", attack, "--provider", provider.pubky, "--provider-address", address,
                "--bitcoind", "127.0.0.1:\(rpc.port)", "--rpc-user", rpc.user, "--rpc-password", rpc.password,
                "--lnd", "127.0.0.1:\(lndPort)", "--lnd-macaroon", macaroonPath, "--amount", String(amountSat)]
            + (tlsCertificatePath.map { ["--lnd-tls-cert", $0] } ?? [])
    }

    /// Runs an attack to its end, its progress lines noted as they come.
    func run(_ attack: String, against provider: Node, amountSat: Int64, clock: StageClock,
             timeout: TimeInterval = 300) throws(Failure) -> KitOutcome {
        let result = try net.tools.run(net.binaries.adversary, try arguments(attack, against: provider, amountSat: amountSat),
                                       timeout: timeout) { clock.note("… " + $0) }
        let said = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("adversary: ") }.joined(separator: "\n")
        return KitOutcome(status: result.status, report: result.json ?? [:], said: said)
    }

    /// Starts an attack in the background (the runner mines while it waits); `extra` are
    /// the flood flags (`--sources`, `--seconds`, ...), `label` names its output files.
    func start(_ attack: String, against provider: Node, amountSat: Int64, extra: [String] = [],
               label: String? = nil) throws(Failure) -> KitProcess {
        try KitProcess(net, executable: net.binaries.adversary,
                       arguments: try arguments(attack, against: provider, amountSat: amountSat) + extra,
                       label: "\(name)-\(label ?? attack)")
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }
}

/// How a kit run ended: its exit code, its report (empty when it printed none), and what
/// it said on stderr when it could not run.
struct KitOutcome {
    let status: Int32
    let report: [String: Any]
    let said: String

    func string(_ key: String) -> String? { JSON.string(report[key]) }
    func bool(_ key: String) -> Bool? { JSON.bool(report[key]) }
    func int(_ key: String) -> Int64? { JSON.int(report[key]) }
    var line: String { report.isEmpty ? "exit \(status): \(said)" : JSON.line(report) }
}

/// A kit run in the background, its stdout and stderr in files of the run directory;
/// stopped by the supervisor if it outlives the scenario.
final class KitProcess {
    private let process = Process()
    private let supervisor: Supervisor
    let outPath: String
    let errPath: String

    init(_ net: Testnet, executable: String, arguments: [String], label: String) throws(Failure) {
        supervisor = net.supervisor
        outPath = net.supervisor.runDirectory + "/\(label).out"
        errPath = net.supervisor.runDirectory + "/\(label).err"
        guard FileManager.default.createFile(atPath: outPath, contents: nil), FileManager.default.createFile(atPath: errPath, contents: nil),
              let out = FileHandle(forWritingAtPath: outPath), let err = FileHandle(forWritingAtPath: errPath) else {
            throw Failure("cannot create \(outPath) or \(errPath)")
        }
        defer { try? out.close(); try? err.close() }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try supervisor.launch(process, name: label)
    }

    var isRunning: Bool { process.isRunning }

    /// Its progress lines so far.
    var progress: [String] {
        ((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Waits for it to end; how it ended.
    func wait(timeout: TimeInterval) throws(Failure) -> KitOutcome {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                let ending = supervisor.stop(process)
                throw Failure("peernode-adversary did not end within \(Int(timeout)) s (\(ending)); see \(errPath)")
            }
            usleep(100_000)
        }
        process.waitUntilExit()
        supervisor.release(process)
        let out = ((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let said = progress.filter { !$0.hasPrefix("adversary: ") }.joined(separator: "\n")
        let status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        return KitOutcome(status: status, report: JSON.parse(out) as? [String: Any] ?? [:], said: said)
    }

    func stop() {
        if process.isRunning { supervisor.stop(process) } else { supervisor.release(process) }
    }
}
