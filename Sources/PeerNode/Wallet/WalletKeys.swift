import Bitcoin

/// The wallet's BIP86 single-key Taproot keys: `m/86'/coin'/0'/<chain>/<index>` from the
/// node seed (coin 0 on mainnet, 1 elsewhere, as BIP44 registers), each paying to the
/// key-path-only output key `internal + H_TapTweak(internal)·G`.
///
/// A gap limit bounds how far past the last used or handed-out index the wallet watches:
/// a restored wallet finds every payment as long as no more than `gapLimit` consecutive
/// addresses went unused, the rule BIP44 wallets share. Public keys and scripts are derived
/// ahead and kept; private keys are derived only when signing.
public struct WalletKeys: Sendable {
    public static let defaultGapLimit = 20

    public let network: Network
    public let gapLimit: Int
    /// `m/86'/coin'/0'`.
    public let accountPath: DerivationPath

    /// The private extended keys at `<account>/<chain>`.
    private let chainKeys: [KeyChain: ExtendedKey]
    /// Output scripts of the derived keys, index by index.
    private var scripts: [KeyChain: [Script]] = [.receive: [], .change: []]
    private var paths: [Script: WalletKeyPath] = [:]
    /// The highest index seen paid on chain or in the mempool, per chain.
    private var highestUsed: [KeyChain: Int] = [.receive: -1, .change: -1]
    /// The next index `nextAddress` hands out, per chain.
    private var nextIssued: [KeyChain: Int] = [.receive: 0, .change: 0]

    /// - Parameter seed: the node seed (32 bytes; BIP32 accepts 16 to 64).
    public init(seed: [UInt8], network: Network, gapLimit: Int = WalletKeys.defaultGapLimit) throws(WalletError) {
        guard gapLimit > 0 else { throw WalletError.invalidSeed("the gap limit must be positive, got \(gapLimit)") }
        let hardened = DerivationPath.hardenedOffset
        let coin: UInt32 = network == .mainnet ? 0 : 1
        self.network = network
        self.gapLimit = gapLimit
        accountPath = DerivationPath(indices: [86 | hardened, coin | hardened, 0 | hardened])
        do {
            let master = try ExtendedKey(seed: seed, network: network == .mainnet ? .mainnet : .testnet)
            let account = try master.derived(accountPath)
            var chainKeys: [KeyChain: ExtendedKey] = [:]
            for chain in KeyChain.allCases { chainKeys[chain] = try account.derivedChild(chain.rawValue) }
            self.chainKeys = chainKeys
        } catch {
            throw WalletError.invalidSeed("\(error)")
        }
        for chain in KeyChain.allCases { extendWindow(chain) }
    }

    // MARK: lookups

    /// The key that `script` pays, when it is one of the watched ones.
    public func path(for script: Script) -> WalletKeyPath? { paths[script] }

    /// The output script of a watched key.
    public func script(for path: WalletKeyPath) -> Script? {
        let list = scripts[path.chain]!
        return Int(path.index) < list.count ? list[Int(path.index)] : nil
    }

    /// Every watched key's output script (used, handed out, plus the gap).
    public var watchedScripts: Set<Script> { Set(paths.keys) }

    /// How many scripts are watched, on every chain. Keys are only ever added, never
    /// dropped, so an unchanged count means an unchanged set of scripts.
    public var watchedScriptCount: Int { paths.count }

    /// How many keys of `chain` are watched now (used, handed out, plus the gap).
    public func watchedCount(_ chain: KeyChain) -> Int { scripts[chain]!.count }

    /// The address of a watched key on the wallet's network.
    public func address(for path: WalletKeyPath) -> WalletAddress? {
        guard let script = script(for: path), let address = try? Address(script: script) else { return nil }
        return WalletAddress(path: path, address: address, encoded: address.encoded(for: network))
    }

    /// The tweaked private key that signs a key-path spend of `script`, nil when the script
    /// is not the wallet's.
    public func signingKey(for script: Script) throws(WalletError) -> PrivateKey? {
        guard let path = paths[script] else { return nil }
        do {
            let child = try chainKeys[path.chain]!.derivedChild(path.index)
            guard let key = child.privateKey else { throw WalletError.signing("the wallet holds no private key for \(path)") }
            return try key.tapTweaked(merkleRoot: nil)
        } catch let error as WalletError {
            throw error
        } catch {
            throw WalletError.signing("deriving the key for \(path): \(error)")
        }
    }

    // MARK: the gap window

    /// Records that `script` was paid and returns its key, widening the window so that the
    /// next `gapLimit` keys after it are watched too. Nil for a script that is not ours.
    public mutating func markUsed(_ script: Script) -> WalletKeyPath? {
        guard let path = paths[script] else { return nil }
        if Int(path.index) > highestUsed[path.chain]! {
            highestUsed[path.chain] = Int(path.index)
            extendWindow(path.chain)
        }
        return path
    }

    /// The next unused address of `chain` without handing it out (to size a transaction
    /// before knowing whether it needs change).
    public func peekNextAddress(_ chain: KeyChain) -> WalletAddress {
        address(for: WalletKeyPath(chain: chain, index: UInt32(nextIndex(chain))))!
    }

    /// Hands out the next address of `chain`: past every index used on chain or handed out
    /// before, so no address is given twice (while this value lives; a restarted wallet
    /// resumes after the last index it sees used).
    public mutating func nextAddress(_ chain: KeyChain) -> WalletAddress {
        let index = nextIndex(chain)
        nextIssued[chain] = index + 1
        extendWindow(chain)
        return address(for: WalletKeyPath(chain: chain, index: UInt32(index)))!
    }

    private func nextIndex(_ chain: KeyChain) -> Int { max(nextIssued[chain]!, highestUsed[chain]! + 1) }

    /// Counts every index below `count` of `chain` as handed out (a high-water mark kept
    /// across restarts), so the window watches `gapLimit` keys past it: coins paid to an
    /// address handed out before a restart are found even if many before it stay unpaid.
    public mutating func markIssued(_ chain: KeyChain, below count: Int) {
        guard count > nextIssued[chain]! else { return }
        nextIssued[chain] = count
        extendWindow(chain)
    }

    /// How many indexes of `chain` were handed out (or marked so).
    public func issuedCount(_ chain: KeyChain) -> Int { nextIssued[chain]! }

    /// Whether `script` is ours and was seen paid (or lies below a key seen paid).
    public func isUsed(_ script: Script) -> Bool {
        guard let path = paths[script] else { return false }
        return Int(path.index) <= highestUsed[path.chain]!
    }

    /// Derives keys until `gapLimit` keys beyond the last used or handed-out one are watched.
    private mutating func extendWindow(_ chain: KeyChain) {
        let wanted = max(highestUsed[chain]!, nextIssued[chain]! - 1) + 1 + gapLimit
        while scripts[chain]!.count < wanted {
            let index = UInt32(scripts[chain]!.count)
            // Public derivation cannot fail for a valid extended key except with probability
            // 2^-127 per index; BIP32 says to skip such an index, which keeps index = position.
            guard let child = try? chainKeys[chain]!.derivedChild(index),
                  let output = try? child.publicKey.xOnlyPublicKey.tapTweaked(merkleRoot: nil) else {
                scripts[chain]!.append(Script())
                continue
            }
            let script = Address.p2tr(outputKey: output.key.bytes).script
            scripts[chain]!.append(script)
            paths[script] = WalletKeyPath(chain: chain, index: index)
        }
    }
}
