#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `peernode-adversary`: a scripted hostile client (see KitOptions.usage). stdout gets the
/// one JSON report line; progress goes to stderr, so a runner can log it and parse stdout.
let words = Array(CommandLine.arguments.dropFirst())
if words.isEmpty || words.contains("--help") || words.contains("-h") {
    KitOutput.out(KitOptions.usage)
    exit(words.isEmpty ? 2 : 0)
}
let options: KitOptions
do {
    options = try KitOptions.parse(words)
} catch {
    KitOutput.err("peernode-adversary: \(error)\n\n\(KitOptions.usage)")
    exit(2)
}
do {
    let report = try await HostileClient(options: options, log: { KitOutput.err("adversary: \($0)") }).run()
    KitOutput.out(report.line)
    exit(0)
} catch {
    KitOutput.err("peernode-adversary: \(error)")
    exit(1)
}
