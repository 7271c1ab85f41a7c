/// Why a Pubky recovery file was not opened. The messages never echo the file's bytes or
/// the passphrase.
public enum RecoveryFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The first line is neither `pubky.org/recovery` nor `pkarr.org/recovery`.
    case notARecoveryFile
    /// After the spec line the file must hold exactly a 24-byte nonce and 48 bytes of box.
    case wrongLength(Int)
    /// The box did not open: XSalsa20-Poly1305 cannot tell a wrong passphrase from a
    /// changed byte, so both end here.
    case wrongPassphraseOrDamaged
    /// libargon2 refused to derive the key (its error code); nothing about the file.
    case keyDerivationFailed(Int32)

    public var description: String {
        switch self {
        case .notARecoveryFile:
            return "not a Pubky recovery file: its first line is not pubky.org/recovery; check the file name"
        case .wrongLength(let count):
            return "the recovery file is damaged: \(count) bytes follow its first line, \(PubkyRecoveryFile.boxedLength) expected"
        case .wrongPassphraseOrDamaged:
            return "the recovery file did not open: the passphrase is wrong, or the file is damaged"
        case .keyDerivationFailed(let code):
            return "the recovery key could not be derived (libargon2 error \(code))"
        }
    }
}
