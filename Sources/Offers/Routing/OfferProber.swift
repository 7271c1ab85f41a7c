/// Asks one contact for its offer. The router calls it for every contact, in parallel,
/// and bounds each call by its own deadline too, so a prober that hangs costs nothing
/// but its time slot.
public protocol OfferProber: Sendable {
    func probe(_ contact: Contact, timeoutMilliseconds: UInt64) async -> ProbeResult
}
