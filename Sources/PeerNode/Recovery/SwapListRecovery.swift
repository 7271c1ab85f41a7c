import Bitcoin
import HTLC
import Lightning
import Offers
import Transport

/// `recover`'s second step (docs/RECOVERY.md, section 3): asks each saved contact for the
/// `onchain_to_ln` swaps it holds with this node (`SwapListRequest`) and re-creates the ones
/// that are ours and still hold a lock, so their engine refunds (client) or claims
/// (provider). An unspent submarine lock cannot be found from the seed and the chain: its
/// script needs the payee's payment hash and the counterparty's key and timeout, which only
/// the two sides of the swap kept.
///
/// Nothing a contact sends is trusted. An entry is re-created only when its accept is
/// signed by the provider (the contact, or this node itself), answers the quote and the
/// request, our key for some index of our seed is in it (the client's refund key, the
/// provider's claim key), its rebuilt contract is the advertised one, and a lock paying it
/// is on chain (`SubmarineRecoveryContract`, `SwapRecreator`). A contact that lies can
/// make us re-create nothing, or a swap whose only actions spend a lock to ourselves.
struct SwapListRecovery: Sendable {
    /// Indexes searched past the scan's range for a contact's key: a lock never spent
    /// leaves no trace for the scan's gap limit to follow.
    static let extraIndexes = 1_000

    /// What one contact answered and what came of it.
    struct ContactReport: Sendable {
        let contact: Offers.Contact
        let listed: Int
        let recreated: [SwapRecreator.Outcome]
        /// Entries not re-created, with the reason (not ours, no lock, already known...).
        let skipped: [(swapID: String, reason: String)]
        /// Set when the contact gave no list at all.
        let failure: String?
    }

    let fetcher: SwapListFetcher
    let recreator: SwapRecreator
    let store: any SwapStore
    let lightning: any LightningBackend
    let network: Network
    let ownPubky: Pubky

    func run(contacts: [Offers.Contact], indexesSearched: Int, fromHeight: Int,
             nowUnix: UInt64) async throws(RecoveryError) -> [ContactReport] {
        var tables = SwapKeyScheme.allCases.map { RecoveryKeyTable(keyChain: recreator.keyChain, scheme: $0) }
        let count = indexesSearched + Self.extraIndexes
        for index in tables.indices {
            do { try tables[index].extend(to: count) } catch { throw .keys("\(error)") }
        }
        var reports: [ContactReport] = []
        for contact in contacts where contact.pubky != ownPubky {
            switch await fetcher.fetch(contact) {
            case .failure(let failure):
                reports.append(ContactReport(contact: contact, listed: 0, recreated: [], skipped: [], failure: failure.description))
            case .success(let entries):
                var recreated: [SwapRecreator.Outcome] = []
                var skipped: [(swapID: String, reason: String)] = []
                for entry in entries {
                    let swapID = entry.role == .provider ? "sub-" + entry.accept.body.quoteID : entry.accept.body.quoteID
                    do {
                        let parameters = try await parameters(entry, from: contact, tables: tables)
                        let known: SwapRecord? = try? await store.swap(parameters.swapID)
                        if known != nil {
                            skipped.append((parameters.swapID, "already in the database"))
                            continue
                        }
                        recreated.append(try await recreator.recreate(parameters, fromHeight: fromHeight, nowUnix: nowUnix))
                    } catch {
                        skipped.append((swapID, error.description))
                    }
                }
                reports.append(ContactReport(contact: contact, listed: entries.count, recreated: recreated, skipped: skipped,
                                             failure: nil))
            }
        }
        return reports
    }

    /// The entry as recovery parameters, with the index our key was found at.
    private func parameters(_ entry: SwapListEntry, from contact: Offers.Contact,
                            tables: [RecoveryKeyTable]) async throws(RecoveryError) -> SubmarineRecoveryContract {
        let accept = entry.accept.body
        switch entry.role {
        case .provider:
            // The contact was our provider: our refund key is in its accept.
            guard let index = tables.lazy.compactMap({ $0.refundIndex(compressed: accept.refundPublicKey.compressed) }).first
            else { throw .invalidContract("its refund key is none of this seed's") }
            let invoice: Invoice
            do { invoice = try InvoiceDecoder.decode(entry.request.invoice) } catch {
                throw .invalidContract("the request's invoice does not decode: \(error)")
            }
            // A swap-in paid our own invoice: our Lightning node made it.
            let own = (try? await lightning.lookupInvoice(paymentHash: invoice.paymentHash)) != nil
            let record = SubmarineClientRecord(provider: contact, quote: entry.quote, request: entry.request,
                                               invoicePaymentHash: invoice.paymentHash, network: network, ownInvoice: own)
            return try SubmarineRecoveryContract(client: record, accept: entry.accept, index: index, network: network)
        case .client:
            // The contact was our client: our claim key is in the accept we signed.
            guard let index = tables.lazy.compactMap({ $0.claimIndex(compressed: accept.claimPublicKey.compressed) }).first
            else { throw .invalidContract("its claim key is none of this seed's") }
            // Our own quote, signed again by us when we listed it: the client cannot change its terms.
            do { try entry.quote.verify(by: ownPubky) } catch { throw .invalidContract("the quote is not signed by this node") }
            return try SubmarineRecoveryContract(provider: entry.accept, quote: entry.quote.body, request: entry.request,
                                                 client: contact.pubky, index: index, network: network, ownPubky: ownPubky)
        }
    }
}
