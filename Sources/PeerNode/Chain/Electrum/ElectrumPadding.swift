import Transport

/// ElectrumX 2.0's reply padding (`PaddedRSTransport`): past the first KiB of a session, a
/// reply shorter than 1,024 bytes is held up to 1 s for more. Measured over the hub: every
/// call of a one-at-a-time client took 1.0 s (ping, header, fee estimate alike), which made
/// a wallet walking 100 blocks take minutes. `ElectrumConnection.padReplies` sends this
/// call with each request so the reply leaves at once.
enum ElectrumPadding {
    /// Eight headers from genesis: 1,280 hex characters, enough for any reply to pass the
    /// 1,024-byte mark once the chain has 8 blocks; cheap for the server (cost 8/50).
    static let filler: (method: String, params: [JSONValue]) = ("blockchain.block.headers", [.integer(0), .integer(8)])

    /// Whether `software` (`server.version`'s first item) is an ElectrumX that pads:
    /// version 2 and later.
    static func holdsShortReplies(_ software: String) -> Bool {
        guard software.hasPrefix("ElectrumX ") else { return false }
        let version = software.dropFirst("ElectrumX ".count)
        guard let major = Int(version.prefix { $0.isNumber }) else { return false }
        return major >= 2
    }
}
