/// The fields of each request message LND's REST gateway decodes (by their proto names,
/// from lnrpc and routerrpc/invoicesrpc as of LND 0.18). The gateway's protobuf decoder
/// refuses any other field with InvalidArgument (HTTP 400), so the simulator does too: a
/// misspelt field must fail here as it fails against LND, not be silently ignored. The
/// camelCase JSON names LND also accepts are refused here (the simulator reads proto
/// names only): stricter than LND, never more lenient.
enum LNDRequestFields {
    /// `lnrpc.Invoice` (POST /v1/invoices).
    static let invoice: Set<String> = [
        "memo", "r_preimage", "r_hash", "value", "value_msat", "settled", "creation_date", "settle_date",
        "payment_request", "description_hash", "expiry", "fallback_addr", "cltv_expiry", "route_hints", "private",
        "add_index", "settle_index", "amt_paid", "amt_paid_sat", "amt_paid_msat", "state", "htlcs", "features",
        "is_keysend", "payment_addr", "is_amp", "amp_invoice_state", "is_blinded", "blinded_path_config",
    ]
    /// `invoicesrpc.AddHoldInvoiceRequest` (POST /v2/invoices/hodl).
    static let addHoldInvoice: Set<String> = [
        "memo", "hash", "value", "value_msat", "description_hash", "expiry", "fallback_addr", "cltv_expiry",
        "route_hints", "private",
    ]
    /// `invoicesrpc.SettleInvoiceMsg` (POST /v2/invoices/settle).
    static let settleInvoice: Set<String> = ["preimage"]
    /// `invoicesrpc.CancelInvoiceMsg` (POST /v2/invoices/cancel).
    static let cancelInvoice: Set<String> = ["payment_hash"]
    /// `routerrpc.SendPaymentRequest` (POST /v2/router/send).
    static let sendPayment: Set<String> = [
        "dest", "amt", "amt_msat", "payment_hash", "final_cltv_delta", "payment_addr", "payment_request",
        "timeout_seconds", "fee_limit_sat", "fee_limit_msat", "outgoing_chan_id", "outgoing_chan_ids",
        "last_hop_pubkey", "cltv_limit", "route_hints", "dest_custom_records", "allow_self_payment", "dest_features",
        "max_parts", "no_inflight_updates", "max_shard_size_msat", "amp", "time_pref", "cancelable",
        "first_hop_custom_records",
    ]
    /// `walletrpc.Transaction` (POST /v2/wallet/tx).
    static let publishTransaction: Set<String> = ["tx_hex", "label"]
}
