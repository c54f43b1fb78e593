//! Barcodes, which `/products.json` lacks, read from `/products/{handle}.json` for a few products
//! no code matched.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{Answer, Crawler, FeedRefusal, Pass, on_db};
use crate::model::StoreUrl;
use crate::service::storefront::store_db::StoreDbError;
use crate::service::storefront::wire::JsonEnvelope;

impl Crawler {
    /// Reads `/products/{handle}.json` of each of `wanted` (product id, handle, `updated_at`)
    /// for its barcodes (the feed has none), at most `barcode_reads_per_pass`, and keeps them.
    /// Stops at the first refusal or request to wait. Returns the requests sent.
    ///
    /// # Errors
    /// The store file could not be written.
    pub async fn read_barcodes(
        &self,
        store: &StoreUrl,
        store_id: i64,
        wanted: &[(u64, String, String)],
    ) -> Result<u32, StoreDbError> {
        let mut pass = Pass {
            store_id,
            id: 0,
            requests: 0,
            notes: Vec::new(),
        };
        let budget = self.config.barcode_reads_per_pass as usize;
        for (product_id, handle, updated_at) in wanted.iter().take(budget) {
            let path = format!("/products/{}.json", urlencode_segment(handle));
            let Some(url) = Self::url(store, &path, &[]) else {
                continue;
            };
            let barcodes: HashMap<u64, String> = match self.get(store, url, &mut pass).await {
                Answer::Json(fetched) => {
                    match serde_json::from_slice::<JsonEnvelope>(&fetched.body) {
                        Ok(json) if json.product.id == *product_id => json
                            .product
                            .variants
                            .iter()
                            .filter_map(|v| {
                                let code = v.barcode.as_deref()?.trim();
                                (!code.is_empty()).then(|| (v.id, code.to_owned()))
                            })
                            .collect(),
                        Ok(_) | Err(_) => HashMap::new(),
                    }
                }
                Answer::Refused(FeedRefusal::NotFound(_)) => HashMap::new(),
                Answer::Refused(_) | Answer::Wait(_) => break,
                Answer::TooLarge(_) | Answer::Failed(_) => continue,
            };
            let (id, at) = (*product_id, updated_at.clone());
            on_db(&self.db, move |db| {
                db.set_barcodes(store_id, id, &at, &barcodes)
            })
            .await?;
        }
        Ok(pass.requests)
    }
}

/// A handle as one URL path segment (a handle from the store is `a-z0-9-`; anything else is
/// escaped rather than trusted).
fn urlencode_segment(handle: &str) -> String {
    let mut out = String::with_capacity(handle.len());
    for byte in handle.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}
