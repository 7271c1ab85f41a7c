import Synchronization

/// The client context for the certificate file a connector read last: the same one while
/// the file's bytes are the same, a new one (with no sessions) when they change. The file
/// is read for every connection (LND may have regenerated it); it is parsed only when it
/// changed.
final class TLSClientContexts: Sendable {
    private struct Current: Sendable {
        let fileBytes: [UInt8]
        /// Its anchors name the file they came from (`anchors.path`).
        let context: TLSClientContext
    }

    private let current = Mutex<Current?>(nil)

    func context(forFile path: String) throws(TLSError) -> TLSClientContext {
        let bytes = try TLSCertificates.fileBytes(path: path)
        if let existing = current.withLock({ $0 }), existing.context.anchors.path == path, existing.fileBytes == bytes {
            return existing.context
        }
        let created = try TLSClientContext(anchors: TLSCertificates.parse(bytes, path: path))
        current.withLock { $0 = Current(fileBytes: bytes, context: created) }
        return created
    }
}
