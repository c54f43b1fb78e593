//! The write log: every write since the base was built, appended and synced to disk before the
//! write returns, and read back at start (module `store`) to make the live segment again.
//!
//! # Format
//!
//! A 48-byte header (magic, version, byte-order mark, the identity of the base the writes go
//! over), then records back to back: payload length (`u32`), CRC-32 of the payload, payload.
//! A payload is a kind byte ([`Kind`]), the product key, and for a product its index fields
//! (popularity, ten texts, description, GTINs) and its stored hit record (module
//! `search::hits`: CRC-32 and record), last, so that a hit is read straight from the log.
//!
//! A record cut short or failing its checksum ends the log (a crash in the middle of an
//! append): the reader keeps what came before and the file is cut back to it, so the next
//! append follows the last whole record.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::sync::Arc;

use super::LiveError;
use super::product::IndexFields;
use crate::search::cursor::Cursor;
use crate::search::docs::HitLoc;

const MAGIC: &[u8; 8] = b"SOLLIVE\0";
const VERSION: u32 = 1;
const BYTE_ORDER: u32 = 0x0102_0304;
pub(crate) const HEADER_BYTES: u64 = 16 + 32;
/// Longest payload accepted when reading (a product's fields are capped far below this).
const MAX_PAYLOAD_BYTES: u32 = 64 << 20;

/// What a record says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A product written (added, or replacing the one of its key).
    Product = 1,
    /// The product of this key deleted.
    Delete = 2,
    /// A product's hit replaced, its index fields unchanged (a price change).
    Hit = 3,
}

/// One record read back.
#[derive(Debug)]
pub(crate) struct Record {
    pub(crate) kind: Kind,
    pub(crate) pk: i64,
    /// For [`Kind::Product`].
    pub(crate) fields: Option<IndexFields>,
    /// For [`Kind::Product`] and [`Kind::Hit`].
    pub(crate) hit: Option<HitLoc>,
}

/// An open log, appended to by the writer.
pub(crate) struct Log {
    file: Arc<File>,
    /// Where the next record goes.
    end: u64,
}

impl Log {
    /// Creates the log at `path` (replacing any) for the base of `identity`, synced.
    pub(crate) fn create(path: &Path, identity: &[u8; 32]) -> std::io::Result<Log> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        file.write_all(MAGIC)?;
        file.write_all(&VERSION.to_le_bytes())?;
        file.write_all(&BYTE_ORDER.to_ne_bytes())?;
        file.write_all(identity)?;
        file.sync_all()?;
        sync_folder(path)?;
        Ok(Log {
            file: Arc::new(file),
            end: HEADER_BYTES,
        })
    }

    /// Opens the log at `path` made for `identity` and reads its records (each to `each`, in
    /// order); a torn or damaged tail is cut off. `Ok(None)` when there is no such file.
    pub(crate) fn open(
        path: &Path,
        identity: &[u8; 32],
        mut each: impl FnMut(Record) -> Result<(), LiveError>,
    ) -> Result<Option<Log>, LiveError> {
        let file = match OpenOptions::new().read(true).write(true).open(path) {
            Ok(file) => file,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(LiveError::io(path, err)),
        };
        let file = Arc::new(file);
        let size = file
            .metadata()
            .map_err(|err| LiveError::io(path, err))?
            .len();
        let mut input = BufReader::with_capacity(1 << 20, &*file);
        let mut header = [0u8; HEADER_BYTES as usize];
        if input.read_exact(&mut header).is_err()
            || &header[..8] != MAGIC
            || header[8..12] != VERSION.to_le_bytes()
            || header[12..16] != BYTE_ORDER.to_ne_bytes()
            || header[16..] != identity[..]
        {
            return Err(LiveError::Damaged {
                path: path.to_path_buf(),
                what: "not a write log of this base",
            });
        }
        let mut end = HEADER_BYTES;
        let mut payload = Vec::new();
        loop {
            let mut head = [0u8; 8];
            if end + 8 > size || input.read_exact(&mut head).is_err() {
                break;
            }
            let len = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
            let crc = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
            if len > MAX_PAYLOAD_BYTES || end + 8 + u64::from(len) > size {
                break;
            }
            payload.resize(len as usize, 0);
            if input.read_exact(&mut payload).is_err() || crc32fast::hash(&payload) != crc {
                break;
            }
            let Some(record) = decode(&payload, &file, end + 8) else {
                break;
            };
            each(record)?;
            end += 8 + u64::from(len);
        }
        drop(input);
        if end < size {
            tracing::warn!(
                path = %path.display(),
                kept_bytes = end,
                cut_bytes = size - end,
                "write log: a torn or damaged tail was cut off"
            );
            file.set_len(end).map_err(|err| LiveError::io(path, err))?;
            file.sync_all().map_err(|err| LiveError::io(path, err))?;
        }
        Ok(Some(Log { file, end }))
    }

    /// Where the next record goes (the bytes written so far).
    pub(crate) fn end(&self) -> u64 {
        self.end
    }

    /// Appends a record (not synced: [`Log::sync`]); returns where its hit is, if it has one.
    pub(crate) fn append(
        &mut self,
        kind: Kind,
        pk: i64,
        fields: Option<&IndexFields>,
        hit: Option<&[u8]>,
    ) -> std::io::Result<Option<HitLoc>> {
        let payload = encode(kind, pk, fields, hit);
        let len = u32::try_from(payload.len())
            .ok()
            .filter(|&len| len <= MAX_PAYLOAD_BYTES)
            .ok_or_else(|| std::io::Error::other("record too large for the write log"))?;
        let mut bytes = Vec::with_capacity(8 + payload.len());
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        bytes.extend_from_slice(&payload);
        let start = self.end;
        write_all_at(&self.file, &bytes, start)?;
        self.end += bytes.len() as u64;
        Ok(hit.map(|hit| HitLoc {
            file: Arc::clone(&self.file),
            offset: self.end - hit.len() as u64,
            len: hit.len() as u32,
        }))
    }

    /// Appends records copied whole from another log (`bytes`, as read from it).
    pub(crate) fn append_raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        write_all_at(&self.file, bytes, self.end)?;
        self.end += bytes.len() as u64;
        Ok(())
    }

    /// Forgets what was appended from `end` on (a write that failed half way).
    pub(crate) fn cut_back(&mut self, end: u64) -> std::io::Result<()> {
        self.file.set_len(end)?;
        self.end = end;
        self.file.sync_data()
    }

    /// Makes everything appended so far durable.
    pub(crate) fn sync(&self) -> std::io::Result<()> {
        self.file.sync_data()
    }

    /// The records' bytes from `from` to the end.
    pub(crate) fn bytes_from(&self, from: u64) -> std::io::Result<Vec<u8>> {
        let from = from.min(self.end);
        let mut bytes = vec![0u8; (self.end - from) as usize];
        crate::search::hits::read_exact_at(&self.file, &mut bytes, from)?;
        Ok(bytes)
    }
}

/// Flushes the folder holding `path`, so that a new file's name is durable too.
pub(crate) fn sync_folder(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        File::open(folder)?.sync_all()?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(windows)]
fn write_all_at(file: &File, mut bytes: &[u8], mut offset: u64) -> std::io::Result<()> {
    while !bytes.is_empty() {
        let written = std::os::windows::fs::FileExt::seek_write(file, bytes, offset)?;
        bytes = &bytes[written..];
        offset += written as u64;
    }
    Ok(())
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

fn encode(kind: Kind, pk: i64, fields: Option<&IndexFields>, hit: Option<&[u8]>) -> Vec<u8> {
    let mut out = Vec::with_capacity(256 + hit.map_or(0, <[u8]>::len));
    out.push(kind as u8);
    out.extend_from_slice(&pk.to_le_bytes());
    if let Some(fields) = fields {
        out.extend_from_slice(&fields.popularity.to_le_bytes());
        for text in &fields.texts {
            put_text(&mut out, text);
        }
        match &fields.description {
            Some(text) => {
                out.push(1);
                put_text(&mut out, text);
            }
            None => out.push(0),
        }
        out.extend_from_slice(&(fields.gtins.len() as u32).to_le_bytes());
        for gtin in &fields.gtins {
            out.extend_from_slice(&gtin.to_le_bytes());
        }
    }
    if let Some(hit) = hit {
        out.extend_from_slice(&(hit.len() as u32).to_le_bytes());
        out.extend_from_slice(hit);
    }
    out
}

/// The record of `payload`, which starts at `at` in `file`.
fn decode(payload: &[u8], file: &Arc<File>, at: u64) -> Option<Record> {
    let mut cursor = Cursor::new(payload);
    let kind = match cursor.take(1)?[0] {
        1 => Kind::Product,
        2 => Kind::Delete,
        3 => Kind::Hit,
        _ => return None,
    };
    let pk = cursor.u64()? as i64;
    let fields = if kind == Kind::Product {
        let popularity = cursor.u64()? as i64;
        let mut texts: [String; 10] = Default::default();
        for text in &mut texts {
            *text = cursor.text()?;
        }
        let description = match cursor.take(1)?[0] {
            0 => None,
            1 => Some(cursor.text()?),
            _ => return None,
        };
        let count = cursor.u32()? as usize;
        if count > cursor.rest().len() / 8 {
            return None;
        }
        let mut gtins = Vec::with_capacity(count);
        for _ in 0..count {
            gtins.push(cursor.u64()?);
        }
        Some(IndexFields {
            pk,
            popularity,
            texts,
            description,
            gtins,
        })
    } else {
        None
    };
    let hit = if kind == Kind::Delete {
        None
    } else {
        let len = cursor.u32()?;
        cursor.take(len as usize)?;
        Some(HitLoc {
            file: Arc::clone(file),
            offset: at + (payload.len() - len as usize) as u64,
            len,
        })
    };
    cursor.rest().is_empty().then_some(Record {
        kind,
        pk,
        fields,
        hit,
    })
}
