import Bitcoin
import HTLC

/// How a wallet follows the chain and what relay policy its transactions meet.
public struct WalletConfiguration: Sendable {
    public var network: Network
    /// The first block that can hold the wallet's coins; scanning starts there.
    public var birthdayHeight: Int
    public var gapLimit: Int
    /// Confirmations a coin needs before it is selected. 0 also allows the wallet's own
    /// unconfirmed change (never unconfirmed coins from others).
    public var minimumConfirmations: Int
    /// The floor under every fee rate asked for: Core's `-minrelaytxfee`. 1 sat/vB meets
    /// both Core's default (0.1 sat/vB since v30) and the hub's.
    public var minimumRelayFeeRate: FeeRate
    /// What a replacement must add per vbyte over the fees it evicts (BIP125 rule 4,
    /// Core's `-incrementalrelayfee`); 1 sat/vB covers Core's default and the hub's.
    public var incrementalRelayFeeRate: FeeRate
    /// Core's `-dustrelayfee` (sat/kvB), which sets each output's dust threshold.
    public var dustRelayFeeRate: Int64
    /// How many recent blocks keep undo data for reorgs.
    public var undoDepth: Int
    /// With `minimumConfirmations` 0: how many of the wallet's own unconfirmed transactions
    /// one cluster may hold, the new one included. Core v31 refuses a 65th transaction in a
    /// cluster (`too-large-cluster`); each lock may get a child the wallet does not see (the
    /// client's claim), and a claim's receiver may add more, so the wallet keeps to 24 of its
    /// own (48 with a claim each) and leaves the rest.
    public var unconfirmedClusterShare: Int = WalletConfiguration.defaultUnconfirmedClusterShare
    /// The same share of Core's cluster size limit (404,000 weight units): half.
    public var unconfirmedClusterWeightShare: Int = 202_000

    public static let defaultUnconfirmedClusterShare = 24

    public init(network: Network, birthdayHeight: Int, gapLimit: Int = WalletKeys.defaultGapLimit,
                minimumConfirmations: Int = 1,
                minimumRelayFeeRate: FeeRate = WalletConfiguration.oneSatPerVByte,
                incrementalRelayFeeRate: FeeRate = WalletConfiguration.oneSatPerVByte,
                dustRelayFeeRate: Int64 = DustLimit.defaultDustRelayFee, undoDepth: Int = 144) {
        self.network = network
        self.birthdayHeight = birthdayHeight
        self.gapLimit = gapLimit
        self.minimumConfirmations = minimumConfirmations
        self.minimumRelayFeeRate = minimumRelayFeeRate
        self.incrementalRelayFeeRate = incrementalRelayFeeRate
        self.dustRelayFeeRate = dustRelayFeeRate
        self.undoDepth = undoDepth
    }

    // 1000 is within FeeRate's range, so this cannot fail.
    public static let oneSatPerVByte = try! FeeRate(satPerKvB: 1_000)

    /// Core's `GetDustThreshold` for an output paying `script`: the cost at the dust relay
    /// fee of the output plus a typical input spending it (67 vbytes for a witness program,
    /// 148 otherwise).
    public func dustThreshold(for script: Script) -> Int64 {
        let scriptLength = script.bytes.count
        let lengthPrefix = scriptLength < 0xfd ? 1 : 3
        let isWitnessProgram = (try? Address(script: script))?.witnessParts != nil
        let size = 8 + lengthPrefix + scriptLength + (isWitnessProgram ? 32 + 4 + 1 + 107 / 4 + 4 : 32 + 4 + 1 + 107 + 4)
        return (Int64(size) * dustRelayFeeRate + 999) / 1000
    }
}
