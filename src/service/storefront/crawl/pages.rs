//! The page loop of a pass: `/products.json` from page 1 to the end, a cap, a repeat or a
//! refusal, each page written as it arrives.

use std::collections::HashSet;
use std::time::Duration;

use reqwest::Url;

use super::{Answer, Crawler, FeedRefusal, Pass, PassReport, on_db};
use crate::model::StoreUrl;
use crate::service::storefront::feed::{
    self, CrawledProduct, FeedPage, FeedProduct, FeedProductId,
};
use crate::service::storefront::store_db::{PassOutcome, StoreDbError};

/// How the page loop ended, for the pass's end.
pub(super) struct PagesEnd {
    /// Every product of the store was seen: the others may be removed.
    pub(super) complete_set: bool,
    /// The store asked to wait this long before it is read again.
    pub(super) wait_after: Duration,
}

impl Crawler {
    /// Reads pages from 1 until the end, a cap, a repeat or a refusal; fills `report`.
    pub(super) async fn pages(
        &self,
        store: &StoreUrl,
        pass: &mut Pass,
        report: &mut PassReport,
        seen: &mut HashSet<u64>,
        progress: &(dyn Fn(u32) + Send + Sync),
    ) -> Result<PagesEnd, StoreDbError> {
        let limit = self.config.page_limit.clamp(1, 250);
        let origin = Url::parse(store.as_str()).ok();
        let mut previous_ids: Vec<u64> = Vec::new();
        let mut skipped_in_row = 0;
        let mut skipped_any = false;
        let mut page = 1_u32;
        let partial = |report: &mut PassReport, pass: &mut Pass, why: String| {
            report.outcome = if report.pages_read > 0 {
                PassOutcome::Partial
            } else {
                PassOutcome::Failed
            };
            pass.note(why);
        };
        loop {
            if page > self.config.max_pages_per_pass {
                let of = report.expected_products.map_or(String::new(), |count| {
                    format!(
                        " of about {} ({count} products)",
                        count.div_ceil(u64::from(limit))
                    )
                });
                partial(
                    report,
                    pass,
                    format!(
                        "read in part: the cap of {} pages per pass was reached{of}",
                        self.config.max_pages_per_pass
                    ),
                );
                return Ok(PagesEnd {
                    complete_set: false,
                    wait_after: Duration::ZERO,
                });
            }
            let Some(url) = Self::url(
                store,
                "/products.json",
                &[("limit", limit.to_string()), ("page", page.to_string())],
            ) else {
                partial(report, pass, "the store's address is not a base URL".into());
                return Ok(PagesEnd {
                    complete_set: false,
                    wait_after: Duration::ZERO,
                });
            };
            // A page that cannot be read (over the body cap, or not the feed's JSON) is skipped.
            let readable = match self.get(store, url, pass).await {
                Answer::Json(fetched) => {
                    crate::upstream::body::decode_json::<FeedPage>(&fetched.body, &fetched.headers)
                        .map(|page| page.products)
                }
                Answer::Refused(refusal) if page == 1 => {
                    report.refusal = Some(refusal);
                    return Ok(PagesEnd {
                        complete_set: false,
                        wait_after: Duration::ZERO,
                    });
                }
                Answer::Refused(refusal) => {
                    partial(report, pass, format!("page {page}: {refusal}"));
                    return Ok(PagesEnd {
                        complete_set: false,
                        wait_after: Duration::ZERO,
                    });
                }
                Answer::Wait(wait) => {
                    partial(
                        report,
                        pass,
                        format!(
                            "page {page}: the store asked to be read less often; it is read again in {} s at the earliest",
                            wait.as_secs()
                        ),
                    );
                    return Ok(PagesEnd {
                        complete_set: false,
                        wait_after: wait,
                    });
                }
                Answer::Failed(why) => {
                    partial(report, pass, format!("page {page}: {why}"));
                    return Ok(PagesEnd {
                        complete_set: false,
                        wait_after: Duration::ZERO,
                    });
                }
                Answer::TooLarge(why) => Err(why),
            };
            let products = match readable {
                Ok(products) => products,
                Err(why) => {
                    pass.note(format!("page {page} skipped: {why}"));
                    skipped_any = true;
                    skipped_in_row += 1;
                    if skipped_in_row >= self.config.max_skipped_pages_in_row {
                        partial(
                            report,
                            pass,
                            format!("{skipped_in_row} pages in a row could not be read"),
                        );
                        return Ok(PagesEnd {
                            complete_set: false,
                            wait_after: Duration::ZERO,
                        });
                    }
                    page += 1;
                    continue;
                }
            };
            skipped_in_row = 0;
            let on_page = products.len();
            if page == 1 && on_page == 0 && report.expected_products != Some(0) {
                report.refusal = Some(FeedRefusal::Empty);
                return Ok(PagesEnd {
                    complete_set: false,
                    wait_after: Duration::ZERO,
                });
            }
            let mut ids = Vec::with_capacity(on_page);
            let mut kept: Vec<CrawledProduct> = Vec::with_capacity(on_page);
            for (index, raw) in products.iter().enumerate() {
                let id = serde_json::from_str::<FeedProductId>(raw.get())
                    .ok()
                    .map(|p| p.id);
                if let Some(id) = id {
                    ids.push(id);
                }
                let mut deserializer = serde_json::Deserializer::from_str(raw.get());
                let product = serde_path_to_error::deserialize::<_, FeedProduct>(&mut deserializer)
                    .map_err(|err| format!("{}: {}", err.path(), err.inner()))
                    .and_then(|product| match &origin {
                        Some(origin) => feed::product_from_feed(origin, product).map_err(|e| e.0),
                        None => Err("the store's address is not a URL".into()),
                    });
                match product {
                    Ok(product) => kept.push(product),
                    Err(why) => {
                        let name =
                            id.map_or(format!("products[{index}]"), |id| format!("product {id}"));
                        pass.note(format!("page {page}: {name} skipped: {why}"));
                        if id.is_none() {
                            skipped_any = true;
                        }
                    }
                }
            }
            if !ids.is_empty() && ids == previous_ids {
                partial(
                    report,
                    pass,
                    format!(
                        "page {page} repeats page {}: the store ignores paging, so the pass ended there",
                        page - 1
                    ),
                );
                return Ok(PagesEnd {
                    complete_set: false,
                    wait_after: Duration::ZERO,
                });
            }
            seen.extend(ids.iter().copied());
            let (store_id, pass_id, requests) = (pass.store_id, pass.id, pass.requests);
            let written = on_db(&self.db, move |db| {
                db.write_page(store_id, pass_id, &kept, requests)
            })
            .await?;
            report.pages_read += 1;
            report.products_seen += u32::try_from(on_page).unwrap_or(u32::MAX);
            report.products_written += written;
            progress(page);
            let short = on_page < limit as usize;
            let covered = report.expected_products.is_some_and(|count| {
                seen.len() as u64 >= count && u64::from(page) * u64::from(limit) >= count
            });
            if short || covered {
                report.outcome = if skipped_any {
                    PassOutcome::Partial
                } else {
                    PassOutcome::Complete
                };
                return Ok(PagesEnd {
                    complete_set: !skipped_any,
                    wait_after: Duration::ZERO,
                });
            }
            previous_ids = ids;
            page += 1;
        }
    }
}
