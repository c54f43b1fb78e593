//! Reads the little-endian records the search's files are written in, field by field: the hit
//! store's records and the live index's log payloads. Each read answers `None` when the bytes
//! run out (a damaged or cut record), so a caller reads a record with `?` and refuses it whole.

/// A record's bytes, read from the front.
pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`.
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    /// The next `count` bytes.
    pub(super) fn take(&mut self, count: usize) -> Option<&'a [u8]> {
        if count > self.bytes.len() {
            return None;
        }
        let (head, tail) = self.bytes.split_at(count);
        self.bytes = tail;
        Some(head)
    }

    /// What is left, without reading it.
    pub(super) fn rest(&self) -> &'a [u8] {
        self.bytes
    }

    pub(super) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    pub(super) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    pub(super) fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A field written as its length (`u32`) and its bytes.
    pub(super) fn field(&mut self) -> Option<&'a [u8]> {
        let length = self.u32()?;
        self.take(length as usize)
    }

    /// A [`field`](Self::field) that is UTF-8 text.
    pub(super) fn text(&mut self) -> Option<String> {
        String::from_utf8(self.field()?.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::Cursor;

    #[test]
    fn fields_read_in_order_and_a_cut_record_reads_none() {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(b"abc");
        bytes.extend_from_slice(&(-5i64).to_le_bytes());
        let mut cursor = Cursor::new(&bytes);
        assert_eq!(cursor.text().as_deref(), Some("abc"));
        assert_eq!(cursor.i64(), Some(-5));
        assert_eq!(cursor.u32(), None);
        // A length past the end: no field, and nothing read past it.
        let cut = [9u8, 0, 0, 0, b'x'];
        assert_eq!(Cursor::new(&cut).field(), None);
    }
}
