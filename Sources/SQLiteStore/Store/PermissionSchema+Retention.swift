extension PermissionSchema {
    /// Migration 13: what the sweep finds ended prompts and consent sessions by, oldest first,
    /// to delete them once `--ended-retention` has passed (``StoreSession/deleteEndedPrompts(before:limit:)``).
    /// Only ended prompts are in the first index (a prompt enters it once, when it ends), and
    /// every session ends by its `expires_at`.
    static let version13 = """
        CREATE INDEX prompts_ended ON prompts (ended_at, id) WHERE state <> 'pending';
        CREATE INDEX consent_sessions_by_expiry ON consent_sessions (expires_at, id);
        """
}
