import Synchronization

/// The client context for the certificates a connector read last: the same one while the
/// file's certificates are the same, a new one (with no sessions) when they change.
final class TLSClientContexts: Sendable {
    private let current = Mutex<TLSClientContext?>(nil)

    func context(for anchors: TLSCertificates) throws(TLSError) -> TLSClientContext {
        if let existing = current.withLock({ $0 }), existing.anchors.der == anchors.der, existing.anchors.path == anchors.path {
            return existing
        }
        let created = try TLSClientContext(anchors: anchors)
        current.withLock { $0 = created }
        return created
    }
}
