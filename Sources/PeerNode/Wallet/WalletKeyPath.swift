/// The two BIP44-style chains under the BIP86 account: addresses handed out to payers, and
/// change the wallet pays to itself.
public enum KeyChain: UInt32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case receive = 0
    case change = 1

    public var description: String { self == .receive ? "receive" : "change" }
}

/// Where a wallet key sits below the account: `m/86'/coin'/0'/<chain>/<index>`.
public struct WalletKeyPath: Hashable, Sendable, CustomStringConvertible {
    public let chain: KeyChain
    public let index: UInt32

    public init(chain: KeyChain, index: UInt32) {
        self.chain = chain
        self.index = index
    }

    public var description: String { "\(chain.rawValue)/\(index)" }
}
