import Transport

extension ControlDispatcher {
    /// Saves a contact. Without `host` and `port` its pubky is resolved through the pkarr
    /// relays (docs/PUBKY.md, "Resolving") and its address follows its packet; with them
    /// the typed address is an override, and the relays (if any) still say which node key
    /// the pubky certifies.
    func addContact(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let name = try args.string("name")
        let text = try args.string("pubky")
        let host = try args.optionalString("host")
        let port = try args.optionalInt("port", in: 1...65535)
        guard (host == nil) == (port == nil) else {
            throw .invalidRequest("contacts.add takes \"host\" and \"port\" together, or neither (to resolve the pubky through pkarr)")
        }
        let pubky: Pubky
        do {
            pubky = try Pubky(parsing: text)
        } catch {
            throw .invalidRequest(ContactError.invalidPubky(error.description).description)
        }
        if pubky == services.identity.pubky || pubky == services.publicPubky {
            throw .invalidRequest("that pubky is this node's own")
        }
        var resolution: PeernodeResolution?
        var note: String?
        if let pkarr = services.pkarr {
            switch await pkarr.directory.resolve(pubky, refresh: true) {
            case .success(let found): resolution = found
            case .failure(let failure):
                guard host != nil else {
                    throw .notFound("\(pubky) cannot be resolved through the pkarr relays: \(failure); add it with its address "
                                    + "(`peernode contacts add \(name) \(pubky) <host:port>`)")
                }
                note = "not resolved through the pkarr relays (\(failure)): the typed address is used, and the pubky is taken as its node key"
            }
        } else if host == nil {
            throw .invalidRequest("no pkarr_relay is set to resolve \(pubky) through; add it with its address "
                                  + "(`peernode contacts add \(name) \(pubky) <host:port>`), or set pkarr_relay")
        }
        if resolution?.nodeKey == services.identity.pubky { throw .invalidRequest("that pubky names this node") }
        let contact: SavedContact
        do {
            contact = try SavedContact(pubky: pubky, name: name, host: host ?? resolution?.endpoint.host ?? "",
                                       port: Int(port ?? Int64(resolution?.endpoint.port ?? 0)),
                                       addedAt: Int64(services.clock.nowUnix), nodeKey: resolution?.nodeKey, resolved: host == nil)
        } catch {
            throw .invalidRequest(error.description)
        }
        let replace = try args.bool("replace", default: false)
        do {
            let before = try await services.store.contact(named: contact.name)
            if let conflict = try await services.store.saveContact(contact, replace: replace) {
                throw ControlError.contactConflict(conflict.description)
            }
            // A replaced contact no longer has a name here, so it is no longer protected.
            if let before, before.pubky != contact.pubky { services.protectedPeers.remove(before.nodeKey) }
            services.protectedPeers.insert(contact.nodeKey)
            guard let saved = try await services.store.contact(pubky: contact.pubky) else {
                throw ControlError.failed("the contact was not found right after saving it")
            }
            var result: [String: JSONValue] = ["contact": Self.json(saved)]
            if let note { result["note"] = .string(note) }
            return .object(result)
        } catch let error as ControlError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    /// `contact` (name or pubky) gets `name`.
    func renameContact(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let which = try args.string("contact")
        let name = try args.string("name")
        do {
            guard let contact = try await services.findContact(which) else {
                throw ControlError.notFound("no contact named or with pubky \"\(which)\"")
            }
            // The new name passes the same checks as one given to `contacts add`.
            do {
                _ = try SavedContact(pubky: contact.pubky, name: name, host: contact.host, port: Int(contact.port),
                                     addedAt: contact.addedAt, nodeKey: contact.nodeKey, resolved: contact.resolved)
            } catch {
                throw ControlError.invalidRequest(error.description)
            }
            if let conflict = try await services.store.renameContact(pubky: contact.pubky, to: name) {
                throw ControlError.contactConflict(conflict.description)
            }
            guard let renamed = try await services.store.contact(pubky: contact.pubky) else {
                throw ControlError.failed("the contact was not found right after renaming it")
            }
            return .object(["contact": Self.json(renamed), "old_name": .string(contact.name)])
        } catch let error as ControlError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    func listContacts() async throws(ControlError) -> JSONValue {
        do {
            return .object(["contacts": .array(try await services.store.contacts().map(Self.json))])
        } catch {
            throw .failed(error.description)
        }
    }

    /// By name, or by pubky in any form `Pubky(parsing:)` reads.
    func removeContact(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let which = try args.string("contact")
        do {
            guard let contact = try await services.findContact(which) else {
                throw ControlError.notFound("no contact named or with pubky \"\(which)\"")
            }
            try await services.store.removeContact(pubky: contact.pubky)
            services.protectedPeers.remove(contact.nodeKey)
            return .object(["removed": Self.json(contact)])
        } catch let error as ControlError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    static func json(_ contact: SavedContact) -> JSONValue {
        .object(["name": .string(contact.name), "pubky": .string(contact.pubky.z32), "host": .string(contact.host),
                 "node_pubky": .string(contact.nodeKey.z32), "address_from": .string(contact.resolved ? "pkarr" : "typed"),
                 "port": .integer(contact.port), "added_at": .integer(contact.addedAt)])
    }
}
