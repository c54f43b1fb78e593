//! Catalogue keys and documents: a document is a product's place in popularity order, and the
//! build reads the products in key order.

use super::SearchError;

/// `products.pk` -> document, asked once per variant (some 14 million at a million products).
/// Catalogue keys are `1..=n` in practice, so a table indexed by key; a map for keys spread wider.
pub(super) enum DocOfPk {
    Table { first: i64, docs: Vec<u32> },
    Map(foldhash::HashMap<i64, u32>),
}

impl DocOfPk {
    const NONE: u32 = u32::MAX;

    pub(super) fn new(pks: &[i64]) -> Self {
        let (Some(&first), Some(&last)) = (pks.iter().min(), pks.iter().max()) else {
            return Self::Map(foldhash::HashMap::default());
        };
        let span = last.abs_diff(first);
        if span < 4 * pks.len() as u64 + 1024 {
            let mut docs = vec![Self::NONE; span as usize + 1];
            for (doc, &pk) in pks.iter().enumerate() {
                docs[pk.abs_diff(first) as usize] = doc as u32;
            }
            Self::Table { first, docs }
        } else {
            Self::Map(
                pks.iter()
                    .enumerate()
                    .map(|(doc, &pk)| (pk, doc as u32))
                    .collect(),
            )
        }
    }

    pub(super) fn get(&self, pk: i64) -> Option<u32> {
        match self {
            Self::Table { first, docs } => {
                let at = pk
                    .checked_sub(*first)
                    .and_then(|at| usize::try_from(at).ok())?;
                docs.get(at).copied().filter(|&doc| doc != Self::NONE)
            }
            Self::Map(map) => map.get(&pk).copied(),
        }
    }
}

/// Document -> the product (as read) that is it. An error unless every document was read
/// exactly once: a product added or removed between reading the order and reading the rows.
pub(super) fn rows_in_doc_order(docs: &[u32], doc_count: usize) -> Result<Vec<u32>, SearchError> {
    if docs.len() != doc_count {
        return Err(SearchError::CatalogueChanged);
    }
    let mut row_of_doc = vec![u32::MAX; doc_count];
    for (row, &doc) in docs.iter().enumerate() {
        let slot = row_of_doc
            .get_mut(doc as usize)
            .ok_or(SearchError::CatalogueChanged)?;
        if *slot != u32::MAX {
            return Err(SearchError::CatalogueChanged);
        }
        *slot = row as u32;
    }
    Ok(row_of_doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows read in key order map back to documents only when each document was read once.
    #[test]
    fn rows_are_put_in_document_order_or_the_catalogue_changed() {
        assert_eq!(rows_in_doc_order(&[2, 0, 1], 3).unwrap(), [1, 2, 0]);
        for (docs, count) in [
            (&[0, 0, 1][..], 3),
            (&[0, 1][..], 3),
            (&[0, 1, 2, 3][..], 3),
            (&[0, 1, 3][..], 3),
        ] {
            assert!(
                matches!(
                    rows_in_doc_order(docs, count),
                    Err(SearchError::CatalogueChanged)
                ),
                "{docs:?}"
            );
        }
    }
}
