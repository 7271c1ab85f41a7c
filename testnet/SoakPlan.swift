/// What `soak --minutes N [--seed S]` was asked for.
struct SoakOptions {
    let minutes: Int
    let seed: UInt64

    /// Parses the words after `soak`; a usage failure names what is wrong.
    init(parsing words: [String], defaultSeed: UInt64) throws(Failure) {
        var minutes: Int?
        var seed = defaultSeed
        var rest = words[...]
        while let word = rest.popFirst() {
            guard let value = rest.popFirst() else { throw Failure("\(word) needs a value") }
            switch word {
            case "--minutes":
                guard let number = Int(value), (1...10_080).contains(number) else {
                    throw Failure("--minutes takes a whole number of minutes from 1 to 10080, got \(value)")
                }
                minutes = number
            case "--seed":
                guard let number = UInt64(value) else { throw Failure("--seed takes a whole number (0 to 2^64-1), got \(value)") }
                seed = number
            default:
                throw Failure("soak takes --minutes N and --seed S, got \(word)")
            }
        }
        guard let minutes else { throw Failure("soak needs --minutes N") }
        self.minutes = minutes
        self.seed = seed
    }
}

/// SplitMix64: a small generator whose whole state is the seed, so `--seed S` replays the
/// same sequence of choices (the timing of the processes is not replayed).
struct SoakRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// One payment of the soak, as chosen before it runs.
struct SoakPlan {
    enum Kind: String {
        /// `pay carol X` with X above the client's savings: a swap through a provider.
        case pay
        /// `swap-out X`: a swap to the client's own wallet.
        case swapOut = "swap-out"
        /// `pay carol X` with X within the client's confirmed savings: sent on chain, no swap.
        case payFromSavings = "pay from savings"
        /// `swap-in X`: savings to the client's own Lightning balance, a submarine swap.
        case swapIn = "swap-in"
    }

    let kind: Kind
    let amountSat: Int64
    /// `<role>:<state>` to crash at, for a swap.
    let crashPoint: String?

    var isSwap: Bool { kind != .payFromSavings }

    /// The providers' smallest swap is 14,730 sat (its refund at the 100 sat/vB fee cap plus
    /// dust); 20,000 keeps the fees well inside the client's 5 % limit at the regtest fee rate.
    static let minimumSat: Int64 = 20_000
    /// Above the 100,000 sat zero-conf limit, so some locks are claimed only once
    /// confirmed, and across the two providers' price crossing (150,000 sat).
    static let maximumSat: Int64 = 250_000
    /// Left in the savings beyond X for the on-chain fee of a payment from savings.
    static let savingsFeeMarginSat: Int64 = 2_000

    /// Picks the next payment: its kind, an amount the balances cover, and for a swap,
    /// one time in two, a crash point among the states a pay writes. Nil when the client's
    /// Lightning funds no longer cover the smallest swap and its savings no payment.
    static func next(savingsSat: Int64, lightningSat: Int64, providerLightningSat: Int64 = 0,
                     using random: inout SoakRandom) -> SoakPlan? {
        // The swap's fees stay under 5 % of X, routing under 1 %: X * 1.06 must be spendable.
        let swapCeiling = min(maximumSat, (lightningSat - 10_000) * 100 / 106)
        let directCeiling = savingsSat - savingsFeeMarginSat
        // `pay` swaps only when the savings do not cover X: its amount starts above them.
        let payFloor = max(minimumSat, savingsSat + 1)
        // Swap-outs fill the savings, payments from savings drain them (at least half of
        // what is there each time, more often once they pass 100,000 sat), so they stay low
        // enough for `pay` to swap about half the time.
        var kinds: [Kind] = []
        if directCeiling >= minimumSat { kinds += Array(repeating: .payFromSavings, count: savingsSat > 100_000 ? 3 : 1) }
        if payFloor <= swapCeiling { kinds += [.pay, .pay] }
        if minimumSat <= swapCeiling { kinds += [.swapOut] }
        // A swap-in locks X plus its fees from the savings (within 5 %) and needs a provider
        // whose Lightning balance pays X with room for routing.
        let swapInCeiling = min(maximumSat, (savingsSat - savingsFeeMarginSat) * 100 / 105, providerLightningSat * 9 / 10)
        if minimumSat <= swapInCeiling { kinds += [.swapIn] }
        guard let kind = kinds.randomElement(using: &random) else { return nil }
        let amount: Int64
        switch kind {
        case .pay: amount = Int64.random(in: payFloor...swapCeiling, using: &random)
        case .swapOut: amount = Int64.random(in: minimumSat...swapCeiling, using: &random)
        case .payFromSavings: amount = Int64.random(in: max(minimumSat, directCeiling / 2)...directCeiling, using: &random)
        case .swapIn: amount = Int64.random(in: minimumSat...swapInCeiling, using: &random)
        }
        var crashPoint: String?
        // Swap-ins run uncrashed here: their kill -9 matrix is the submarine crash set's.
        if kind != .payFromSavings && kind != .swapIn && Bool.random(using: &random) {
            crashPoint = Bool.random(using: &random)
                ? "client:" + CrashScenarios.clientStates.randomElement(using: &random)!
                : "provider:" + CrashScenarios.providerStates.randomElement(using: &random)!
        }
        return SoakPlan(kind: kind, amountSat: amount, crashPoint: crashPoint)
    }

    var title: String {
        let what = switch kind {
        case .swapOut: "swap-out \(formatSats(amountSat)) to the client's wallet"
        case .swapIn: "swap-in \(formatSats(amountSat)) to the client's Lightning"
        case .pay, .payFromSavings: "\(kind.rawValue) carol \(formatSats(amountSat))"
        }
        return what + (crashPoint.map { ", crash at \($0)" } ?? "")
    }
}
