/// One caveat of a macaroon. LND's own are first-party conditions in text such as
/// `ipaddr 192.168.1.2` or `time-before 2026-12-01T00:00:00Z`; a third-party caveat also
/// carries a verification id.
public struct MacaroonCaveat: Sendable, Equatable {
    public var location: String?
    public var identifier: [UInt8]
    public var verificationID: [UInt8]?

    public init(location: String? = nil, identifier: [UInt8], verificationID: [UInt8]? = nil) {
        self.location = location
        self.identifier = identifier
        self.verificationID = verificationID
    }

    public var isFirstParty: Bool { verificationID == nil }

    /// The condition as text (first-party caveats are UTF-8 conditions).
    public var condition: String { String(decoding: identifier, as: UTF8.self) }
}
