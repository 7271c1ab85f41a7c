import HTLC

extension SwapKeyChain {
    /// The key scheme under which index `index`'s secrets pass `isOurs`, each scheme tried
    /// (recovery parameters do not say which one made a swap); nil when none does.
    func scheme(at index: UInt32, where isOurs: (SwapSecrets) -> Bool) throws(RecoveryError) -> SwapKeyScheme? {
        for scheme in SwapKeyScheme.allCases {
            let derived: SwapSecrets
            do { derived = try secrets(index: index, scheme: scheme) } catch { throw .keys("\(error)") }
            if isOurs(derived) { return scheme }
        }
        return nil
    }
}
