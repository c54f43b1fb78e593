//! API keys and their tiers. Keys are stored only as SHA-256 digests: a leaked catalogue file
//! does not leak usable keys. New keys are random and shown once.

use rand::RngCore as _;
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::CatalogueError;
use crate::model::Tier;

/// The stored form of a key.
pub fn hash(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    hex(&digest)
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

/// A new random key: `sk_` and 32 bytes of OS randomness in hex.
pub fn new_key() -> String {
    let mut bytes = [0u8; 32];
    // ThreadRng is a CSPRNG seeded from the OS.
    rand::rng().fill_bytes(&mut bytes);
    format!("sk_{}", hex(&bytes))
}

/// Stores `key` (hashed) with its tier.
pub fn insert(
    conn: &Connection,
    key: &str,
    tier: Tier,
    label: &str,
    created_at: &str,
) -> Result<(), CatalogueError> {
    conn.execute(
        "INSERT OR REPLACE INTO api_keys (key_hash, tier, label, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![hash(key), tier.as_str(), label, created_at],
    )?;
    Ok(())
}

/// The tier of a valid (known, not revoked) key.
pub fn tier_of(conn: &Connection, key: &str) -> Result<Option<Tier>, CatalogueError> {
    tier_of_hash(conn, &hash(key))
}

/// The tier of the valid key whose stored digest is `key_hash` (see [`hash`]).
pub fn tier_of_hash(conn: &Connection, key_hash: &str) -> Result<Option<Tier>, CatalogueError> {
    let tier: Option<String> = conn
        .prepare_cached("SELECT tier FROM api_keys WHERE key_hash = ?1 AND revoked_at IS NULL")?
        .query_row([key_hash], |row| row.get(0))
        .optional()?;
    Ok(tier.and_then(|t| t.parse().ok()))
}

/// One stored key, as `keys list` shows it (never the key itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    /// First 12 hex digits of the digest: enough to name the key in `keys revoke`.
    pub id: String,
    /// The key's tier.
    pub tier: Tier,
    /// Free text given when the key was made.
    pub label: String,
    /// When it was made.
    pub created_at: String,
    /// When it was revoked, if it was.
    pub revoked_at: Option<String>,
}

/// All keys, oldest first.
pub fn list(conn: &Connection) -> Result<Vec<KeyRecord>, CatalogueError> {
    let mut statement = conn.prepare(
        "SELECT key_hash, tier, label, created_at, revoked_at FROM api_keys ORDER BY created_at, key_hash",
    )?;
    let rows = statement.query_map([], |row| {
        let hash: String = row.get(0)?;
        let tier: String = row.get(1)?;
        Ok(KeyRecord {
            id: hash[..12.min(hash.len())].to_owned(),
            tier: tier.parse().unwrap_or(Tier::Free),
            label: row.get(2)?,
            created_at: row.get(3)?,
            revoked_at: row.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Revokes the keys whose digest starts with `id_prefix` (at least 8 hex digits, one match).
/// Returns whether a key was revoked.
pub fn revoke(conn: &Connection, id_prefix: &str, now: &str) -> Result<bool, CatalogueError> {
    let prefix = id_prefix.trim().to_ascii_lowercase();
    if prefix.len() < 8 || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(CatalogueError::Invalid(
            "a key id is at least 8 hex digits, as `keys list` shows it".into(),
        ));
    }
    let changed = conn.execute(
        "UPDATE api_keys SET revoked_at = ?2 WHERE revoked_at IS NULL AND substr(key_hash, 1, length(?1)) = ?1",
        params![prefix, now],
    )?;
    Ok(changed > 0)
}
