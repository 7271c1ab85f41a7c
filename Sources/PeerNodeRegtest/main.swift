#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Regtest
import Transport

/// `peernode-regtest`: starts the hub, prints where it listens and how to log in as one
/// JSON object on stdout (Bitcoin Core's RPC under "bitcoind", each Lightning node's LND
/// REST endpoint and macaroon under "lightning"), serves until SIGINT/SIGTERM, then stops
/// everything and exits 0.
func fail(_ message: String) -> Never {
    Output.write("peernode-regtest: \(message)\n", to: STDERR_FILENO)
    exit(2)
}

let options: HubOptions
do {
    guard let parsed = try HubOptions.parse(Array(CommandLine.arguments.dropFirst())) else {
        Output.write(HubOptions.usage + "\n", to: STDOUT_FILENO)
        exit(0)
    }
    options = parsed
} catch {
    fail("\(error)\n\n\(HubOptions.usage)")
}

do {
    try await HubProcess(options: options).run()
    exit(0)
} catch {
    fail("\(error)")
}
