#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Regtest
import Transport

/// `peernode-regtest`: starts the hub, prints where it listens and how to log in as one
/// JSON object on stdout, serves until SIGINT/SIGTERM, then stops everything and exits 0.
///
/// The Lightning simulator's LND REST endpoints will be started next to the RPC service
/// (see `HubProcess.startLightning`), and listed under "lightning" in the printed JSON.
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
