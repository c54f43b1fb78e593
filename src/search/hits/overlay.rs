//! A hit store of the products written to the live index (module `live`): the same file
//! format as the catalogue's store, written from records already encoded (`live::encode`)
//! instead of from the catalogue, and read back the same way.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use super::{HitError, HitStore, load, read_exact_at, write_directory, write_header};

impl HitStore {
    /// The stored record of product `pk` (CRC-32 and payload), as the live index's
    /// `stored_record` makes it (module `live::encode`).
    pub(crate) fn stored_record_of(&self, pk: i64) -> Result<Vec<u8>, HitError> {
        let (start, length) = self.record_of(pk).ok_or(HitError::Unknown(pk))?;
        let mut record = vec![0u8; length];
        read_exact_at(&self.file, &mut record, start)?;
        Ok(record)
    }

    /// Every product key in the store, increasing.
    pub(crate) fn product_keys(&self) -> &[i64] {
        &self.pks
    }
}

/// Writes a store of `records` (product key and stored record, keys increasing) to `file`,
/// made for `identity`; the first record that cannot be had ends it with its error.
pub(crate) fn write_records(
    file: &mut File,
    identity: &[u8; 32],
    records: impl IntoIterator<Item = std::io::Result<(i64, Vec<u8>)>>,
) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(1 << 20, file);
    write_header(&mut out, identity)?;
    let mut position = super::HEADER_BYTES;
    let mut pks = Vec::new();
    let mut offsets = Vec::new();
    for record in records {
        let (pk, record) = record?;
        if pks.last().is_some_and(|&last| last >= pk) {
            return Err(std::io::Error::other("hit records out of key order"));
        }
        pks.push(pk);
        offsets.push(position);
        out.write_all(&record)?;
        position += record.len() as u64;
    }
    write_directory(&mut out, &pks, &offsets, position)
}

/// The store at `path` if it was written for `identity` and holds together.
pub(crate) fn open_records(path: &Path, identity: &[u8; 32]) -> std::io::Result<HitStore> {
    let file = File::open(path)?;
    load(file, identity).map_err(|err| std::io::Error::other(err.to_string()))
}
