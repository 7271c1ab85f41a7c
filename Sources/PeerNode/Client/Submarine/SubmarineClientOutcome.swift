/// How a submarine swap ended for the client: why, and where its funds are.
public struct SubmarineClientOutcome: Sendable, Hashable, CustomStringConvertible {
    public let reason: String
    public let funds: SubmarineClientFundsFate

    public init(reason: String, funds: SubmarineClientFundsFate) {
        self.reason = reason
        self.funds = funds
    }

    public var description: String { "\(reason); \(funds)" }
}
