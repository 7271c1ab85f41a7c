import Transport

/// Human output for the daemon's results: short labelled lines and aligned tables.
/// `--json` bypasses all of this and prints the result as the daemon sent it.
enum Render {
    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text)?: return text
        case .number(let text)?: return text
        case .bool(let flag)?: return flag ? "yes" : "no"
        case .null?, nil: return "-"
        case let other?: return other.canonicalString
        }
    }

    static func sats(_ value: JSONValue?) -> String {
        guard case .number(let digits)? = value else { return text(value) }
        // Thousands separators make amounts readable at a glance: 1,250,000 sat.
        let negative = digits.hasPrefix("-")
        let body = Array(negative ? digits.dropFirst() : Substring(digits))
        var grouped = ""
        for (index, character) in body.enumerated() {
            if index > 0 && (body.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return (negative ? "-" : "") + grouped + " sat"
    }

    static func table(_ header: [String], _ rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n")
    }

    static func fields(_ pairs: [(String, String)]) -> String {
        let width = pairs.map(\.0.count).max() ?? 0
        return pairs.map { "\($0.0):\(String(repeating: " ", count: width - $0.0.count + 1))\($0.1)" }.joined(separator: "\n")
    }

    static func status(_ result: JSONValue) -> String {
        var pairs: [(String, String)] = [
            ("network", text(result["network"])), ("pubky", text(result["pubky"])), ("listening", text(result["listen"])),
            ("tip height", result["tip_height"] == .null ? "unknown (\(text(result["chain_error"])))" : text(result["tip_height"])),
            ("wallet", "\(sats(result["wallet"]?["confirmed_sat"])) confirmed, \(sats(result["wallet"]?["unconfirmed_sat"])) unconfirmed"),
            ("lightning", result["lightning"] == .null ? "unknown (\(text(result["lightning_error"])))"
                : sats(result["lightning"]?["balance_sat"])),
            ("peers", text(result["peers"])),
            ("provider", result["provider"]?.boolValue == true ? "on" : "off"),
        ]
        let engines = [("provider", result["engines"]?["provider"]), ("client", result["engines"]?["client"])]
            .map { "\($0.0) \($0.1?.boolValue == true ? "wired" : "not wired")" }
        pairs.append(("swap engines", engines.joined(separator: ", ")))
        return fields(pairs)
    }

    static func contact(_ contact: JSONValue?, verb: String) -> String {
        "\(verb) \(text(contact?["name"])) (\(text(contact?["pubky"])) at \(text(contact?["host"])):\(text(contact?["port"])))"
    }

    static func contacts(_ result: JSONValue) -> String {
        let list = result["contacts"]?.arrayValue ?? []
        if list.isEmpty { return "no contacts; add one with `peernode contacts add <name> <pubky> <host:port>`" }
        return table(["NAME", "PUBKY", "ADDRESS"], list.map { contact in
            [text(contact["name"]), text(contact["pubky"]), "\(text(contact["host"])):\(text(contact["port"]))"]
        })
    }

    static func balance(_ result: JSONValue) -> String {
        fields([("confirmed", sats(result["confirmed_sat"])), ("unconfirmed", sats(result["unconfirmed_sat"])),
                ("immature", sats(result["immature_sat"])), ("total", sats(result["total_sat"])),
                ("synced to", text(result["synced_height"]))])
    }

    static func sent(_ result: JSONValue) -> String {
        fields([("sent", sats(result["amount_sat"])), ("to", text(result["address"])), ("txid", text(result["txid"])),
                ("fee", sats(result["fee_sat"])), ("vsize", text(result["vsize"]))])
    }

    static func offers(_ result: JSONValue) -> String {
        let offers = result["offers"]?.arrayValue ?? []
        var out: [String] = []
        if offers.isEmpty {
            out.append("no offers")
        } else {
            out.append(table(["CONTACT", "MIN", "MAX", "BASE FEE", "PPM", "ON-CHAIN FEE", "CONFS", "TIMEOUT"], offers.map { offer in
                [text(offer["contact"]), sats(offer["min_amount_sat"]), sats(offer["max_amount_sat"]), sats(offer["base_fee_sat"]),
                 text(offer["fee_ppm"]), sats(offer["onchain_fee_sat"]), text(offer["required_confirmations"]),
                 "\(text(offer["htlc_timeout_blocks"])) blocks"]
            }))
        }
        let skipped = result["skipped"]?.arrayValue ?? []
        if !skipped.isEmpty {
            out.append("")
            out.append("skipped:")
            for entry in skipped { out.append("  \(text(entry["contact"])): \(text(entry["reason"]))") }
        }
        return out.joined(separator: "\n")
    }

    static func swaps(_ result: JSONValue) -> String {
        let list = result["swaps"]?.arrayValue ?? []
        if list.isEmpty { return "no swaps" }
        return table(["ID", "ROLE", "STATE", "FINAL", "PEER"], list.map { swap in
            [text(swap["id"]), text(swap["role"]), text(swap["state"]), text(swap["final"]), String(text(swap["peer"]).prefix(12)) + "…"]
        })
    }

    static func swap(_ result: JSONValue) -> String {
        let swap = result["swap"]
        var out = fields([("id", text(swap?["id"])), ("role", text(swap?["role"])), ("peer", text(swap?["peer"])),
                          ("created", text(swap?["created_at"])), ("contract", text(swap?["contract"]))])
        out += "\n\nevents:\n"
        out += table(["#", "KIND", "FINAL", "AT", "DATA"], (result["events"]?.arrayValue ?? []).map { event in
            [text(event["sequence"]), text(event["kind"]), text(event["final"]), text(event["at"]), text(event["data"])]
        })
        return out
    }

    /// Any result as indented `key: value` lines (the engines' results until they get
    /// their own layout); amounts (`*_sat`) are grouped.
    static func generic(_ value: JSONValue, indent: String = "") -> String {
        guard case .object(let members) = value else { return indent + text(value) }
        var lines: [String] = []
        for key in members.keys.sorted() {
            let member = members[key]!
            switch member {
            case .object:
                lines.append("\(indent)\(key):")
                lines.append(generic(member, indent: indent + "  "))
            default:
                lines.append("\(indent)\(key): \(key.hasSuffix("_sat") ? sats(member) : text(member))")
            }
        }
        return lines.joined(separator: "\n")
    }
}
