import Transport

extension ControlDispatcher {
    func addContact(_ args: ControlArgs) async throws(ControlError) -> JSONValue {
        let name = try args.string("name")
        let pubky = try args.string("pubky")
        let host = try args.string("host")
        guard let port = try args.optionalInt("port", in: 1...65535) else {
            throw .invalidRequest("contacts.add needs \"port\" (1 to 65535)")
        }
        let contact: SavedContact
        do {
            contact = try SavedContact(pubky: pubky, name: name, host: host, port: Int(port),
                                       addedAt: Int64(services.clock.nowUnix))
        } catch {
            throw .invalidRequest(error.description)
        }
        if contact.pubky == services.identity.pubky { throw .invalidRequest("that pubky is this node's own") }
        let replace = try args.bool("replace", default: false)
        do {
            let before = try await services.store.contact(named: contact.name)
            if let conflict = try await services.store.saveContact(contact, replace: replace) {
                throw ControlError.contactConflict(conflict.description)
            }
            // A replaced contact no longer has a name here, so it is no longer protected.
            if let before, before.pubky != contact.pubky { services.protectedPeers.remove(before.pubky) }
            services.protectedPeers.insert(contact.pubky)
            guard let saved = try await services.store.contact(pubky: contact.pubky) else {
                throw ControlError.failed("the contact was not found right after saving it")
            }
            return .object(["contact": Self.json(saved)])
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
                                     addedAt: contact.addedAt)
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
            services.protectedPeers.remove(contact.pubky)
            return .object(["removed": Self.json(contact)])
        } catch let error as ControlError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    static func json(_ contact: SavedContact) -> JSONValue {
        .object(["name": .string(contact.name), "pubky": .string(contact.pubky.z32), "host": .string(contact.host),
                 "port": .integer(contact.port), "added_at": .integer(contact.addedAt)])
    }
}
