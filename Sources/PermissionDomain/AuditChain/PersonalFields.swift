/// The personal fields of an audit entry about a user (SPEC §12): the user id, the purpose text
/// shown, and the entry's `detail` (which may name the user in other words: a policy id, a
/// language, a consent session). The log stores them sealed under a key of that user only
/// (``PersonalFieldSealer``), so that destroying the key erases them (GDPR Art. 17) while the
/// chain, which hashes the sealed form, still verifies.
///
/// Their plaintext form, which the seal encrypts, is a flat JSON object with sorted keys
/// (``DetailJSON``): `{"detail":"…","purpose":"…","user":"…"}`, `detail` (the stored detail
/// text) and `purpose` absent when there is none.
package struct PersonalFields: Equatable, Sendable {
    package var user: String
    package var purpose: String?
    /// The entry's stored `detail` text (``DetailJSON``).
    package var detail: String?

    package init(user: String, purpose: String?, detail: String? = nil) {
        self.user = user
        self.purpose = purpose
        self.detail = detail
    }

    private static let names: Set = ["user", "purpose", "detail"]

    /// The plaintext bytes the seal encrypts.
    package var plaintext: [UInt8] {
        var object = ["user": user]
        if let purpose { object["purpose"] = purpose }
        if let detail { object["detail"] = detail }
        return Array((DetailJSON.encode(object) ?? "{}").utf8)
    }

    /// The fields `plaintext` holds, or nil when it is not their form.
    package init?(plaintext: [UInt8]) {
        guard let object = DetailJSON.decode(String(decoding: plaintext, as: UTF8.self)),
            let user = object["user"], object.keys.allSatisfy(Self.names.contains)
        else { return nil }
        self.init(user: user, purpose: object["purpose"], detail: object["detail"])
    }
}

/// What an entry about a user stores in place of its personal fields.
package struct SealedPersonalFields: Equatable, Sendable {
    /// A random name of the user's key, stored in the `user` column (audit filtering by user
    /// looks it up while the key exists; afterwards it names no one).
    package var pseudonym: String
    /// The sealed ``PersonalFields``, stored in the `personal` column.
    package var ciphertext: String

    package init(pseudonym: String, ciphertext: String) {
        self.pseudonym = pseudonym
        self.ciphertext = ciphertext
    }
}

/// Seals the personal fields of an entry about a user under that user's key, creating the key
/// the first time (a store's per-user key table; the cryptography lives outside the domain).
package protocol PersonalFieldSealer {
    /// `fields` sealed under the key of `fields.user`, bound to entry `seq`.
    func seal(_ fields: PersonalFields, seq: Int64) throws -> SealedPersonalFields
}
