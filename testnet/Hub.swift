import Foundation

/// The running `peernode-regtest`: its JSON-RPC endpoint and the process.
struct Hub {
    let rpc: HubRPC
    let process: Process
    /// The pkarr relays it serves (`--pkarr-relays N`), as URLs.
    var pkarrRelays: [String] = []

    /// Starts the hub and waits for its one-line JSON description of its endpoints.
    static func start(_ binaries: Binaries, supervisor: Supervisor, arguments: [String] = [],
                      timeout: TimeInterval = 60) throws(Failure) -> Hub {
        let process = try supervisor.start("hub", executable: binaries.regtest, arguments: arguments, logName: "hub.log",
                                           isHub: true)
        let log = supervisor.runDirectory + "/hub.log"
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let info = JSON.firstObject(in: text), let core = JSON.object(info["bitcoind"]) {
                guard let port = JSON.int(core["port"]), let user = JSON.string(core["user"]),
                      let password = JSON.string(core["password"]) else {
                    throw Failure("the hub's start-up line has no bitcoind port/user/password: \(text.prefix(300))")
                }
                let relays = (info["pkarr_relays"] as? [Any] ?? []).compactMap { JSON.string($0) }
                return Hub(rpc: HubRPC(port: Int(port), user: user, password: password), process: process, pkarrRelays: relays)
            }
            if !process.isRunning {
                throw Failure("the hub exited (\(Supervisor.describe(process))) before printing its endpoints; see \(log):\n\(text.suffix(800))")
            }
            usleep(50_000)
        }
        throw Failure("the hub printed no endpoints within \(Int(timeout)) s; see \(log)")
    }

    /// Mines `blocks` blocks to the hub's own address.
    func mine(_ blocks: Int) throws(Failure) {
        _ = try rpc.call("hub_mine", [blocks])
    }
}

/// Where the three executables are: next to this one (all are products of the same
/// package build), or in the directory given with `--bin`.
struct Binaries {
    let node: String
    let regtest: String
    /// The hostile-peer kit; checked only by the scenarios that run it, so the demo and the
    /// other scenarios still run where it was not built.
    let adversary: String

    init(directory: String) throws(Failure) {
        node = directory + "/peernode"
        regtest = directory + "/peernode-regtest"
        adversary = directory + "/peernode-adversary"
        for path in [node, regtest] where !FileManager.default.isExecutableFile(atPath: path) {
            throw Failure("\(path) is missing: build it with `swift build --product \(URL(fileURLWithPath: path).lastPathComponent)` "
                + "(or `make demo`), or point --bin at the directory holding it")
        }
    }
}
