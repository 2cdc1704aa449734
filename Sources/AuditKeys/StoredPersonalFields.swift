package import PermissionDomain

/// The personal fields of one stored audit row as a reader sees them: in clear for an entry
/// about no user, opened with the user's key for a sealed one, gone for one whose user was
/// erased. Both stores read their rows through it.
package struct StoredPersonalFields: Equatable, Sendable {
    package var user: String?
    package var purpose: String?
    /// The stored `detail` text (``DetailJSON``).
    package var detail: String?
    /// The user's pseudonym, for a sealed entry.
    package var pseudonym: String?
    /// The entry's user was erased: their key is gone, and with it the fields.
    package var erased = false

    /// The fields of the row with these stored columns.
    /// - Parameters:
    ///   - user: the `user` column (the pseudonym when `personal` is set).
    ///   - purpose: the `purpose` column.
    ///   - detail: the `detail` column.
    ///   - personal: the `personal` column (the sealed fields), nil for an entry about no user.
    ///   - wrappedKey: the user's wrapped key, looked up by the pseudonym; nil once erased.
    ///   - seq: the row's seq (bound into the seal).
    ///   - keyring: the store's keys.
    /// - Throws: ``AuditKeyError/unreadable(_:)`` when the seal does not open.
    package init(
        user: String?, purpose: String?, detail: String?, personal: String?, wrappedKey: String?, seq: Int64,
        keyring: AuditKeyring
    ) throws {
        guard let personal, let pseudonym = user else {
            (self.user, self.purpose, self.detail) = (user, purpose, detail)
            return
        }
        self.pseudonym = pseudonym
        guard let wrappedKey else {
            erased = true
            return
        }
        let fields = try keyring.open(personal, wrappedKey: wrappedKey, pseudonym: pseudonym, seq: seq)
        (self.user, self.purpose, self.detail) = (fields.user, fields.purpose, fields.detail)
    }
}

/// Seals the personal fields of an entry under its user's key, creating the key the first time,
/// over a store's `audit_subjects` table (`lookup` and `insert`). Writers take turns, so two
/// never create one user's key at once.
package struct SubjectSealer: PersonalFieldSealer {
    let keyring: AuditKeyring
    /// The pseudonym and wrapped key of a user, nil when there is none.
    let lookup: (_ user: String) throws -> (pseudonym: String, wrappedKey: String)?
    /// Stores a new user's key.
    let insert: (_ user: String, _ pseudonym: String, _ wrappedKey: String) throws -> Void

    package init(
        keyring: AuditKeyring, lookup: @escaping (_ user: String) throws -> (pseudonym: String, wrappedKey: String)?,
        insert: @escaping (_ user: String, _ pseudonym: String, _ wrappedKey: String) throws -> Void
    ) {
        self.keyring = keyring
        self.lookup = lookup
        self.insert = insert
    }

    package func seal(_ fields: PersonalFields, seq: Int64) throws -> SealedPersonalFields {
        var subject = try lookup(fields.user)
        if subject == nil {
            let made = keyring.newSubject()
            try insert(fields.user, made.pseudonym, made.wrappedKey)
            subject = made
        }
        guard let (pseudonym, wrappedKey) = subject else { preconditionFailure("a subject was found or made") }
        return SealedPersonalFields(
            pseudonym: pseudonym,
            ciphertext: try keyring.seal(fields, wrappedKey: wrappedKey, pseudonym: pseudonym, seq: seq))
    }
}
