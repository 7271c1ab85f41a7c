import Bitcoin

/// An address of the wallet: where it is in the key tree, the output it stands for, and its
/// string on the wallet's network.
public struct WalletAddress: Hashable, Sendable, CustomStringConvertible {
    public let path: WalletKeyPath
    public let address: Address
    public let encoded: String

    public init(path: WalletKeyPath, address: Address, encoded: String) {
        self.path = path
        self.address = address
        self.encoded = encoded
    }

    public var scriptPubKey: Script { address.script }

    public var description: String { encoded }
}
