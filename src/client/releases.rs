//! The release calendar (`GET /api/v2/releases`): coming drops in date order, one entry per
//! pair, each with its mechanics and premium estimate.

use super::{Budgeted, Client, ClientError, drop_empty_query};
use crate::model::V2Envelope;
use crate::model::releases::ReleasesAnswer;

/// What part of the calendar to ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReleasesRequest {
    /// The first day (`None`: the server's today).
    pub from: Option<chrono::NaiveDate>,
    /// Days from `from` (`None`: the server's default, 30).
    pub days: Option<u32>,
    /// Only this brand.
    pub brand: Option<String>,
    /// Only pairs listing this US size.
    pub size: Option<String>,
    /// 1-based page (`None`: the first).
    pub page: Option<u32>,
    /// Entries per page (`None`: the server's default, 100; at most 500).
    pub limit: Option<u32>,
}

impl Client {
    /// `GET /api/v2/releases`: one page of the calendar.
    pub async fn releases(&self, request: &ReleasesRequest) -> Result<ReleasesAnswer, ClientError> {
        let mut url = self.url(&[("", "api"), ("", "v2"), ("", "releases")])?;
        {
            let mut pairs = url.query_pairs_mut();
            if let Some(from) = request.from {
                pairs.append_pair("from", &from.format("%Y-%m-%d").to_string());
            }
            if let Some(days) = request.days {
                pairs.append_pair("days", &days.to_string());
            }
            if let Some(brand) = request.brand.as_deref().filter(|b| !b.trim().is_empty()) {
                pairs.append_pair("brand", brand);
            }
            if let Some(size) = request.size.as_deref().filter(|s| !s.trim().is_empty()) {
                pairs.append_pair("size", size);
            }
            if let Some(page) = request.page {
                pairs.append_pair("page", &page.to_string());
            }
            if let Some(limit) = request.limit {
                pairs.append_pair("limit", &limit.to_string());
            }
        }
        drop_empty_query(&mut url);
        let envelope: V2Envelope<ReleasesAnswer> = self.get(url, Budgeted::No).await?;
        Ok(envelope.data)
    }

    /// Every page of the window `request` names (its `page` ignored), joined: at most
    /// `max_pages` requests of 500 entries.
    pub async fn releases_all(
        &self,
        request: &ReleasesRequest,
        max_pages: u32,
    ) -> Result<ReleasesAnswer, ClientError> {
        let mut asked = ReleasesRequest {
            page: Some(1),
            limit: Some(crate::model::releases::MAX_RELEASE_LIMIT),
            ..request.clone()
        };
        let mut all = self.releases(&asked).await?;
        let mut page = 1;
        while (all.releases.len() as u64) < all.total && page < max_pages.max(1) {
            page += 1;
            asked.page = Some(page);
            let next = self.releases(&asked).await?;
            if next.releases.is_empty() {
                break;
            }
            all.releases.extend(next.releases);
        }
        Ok(all)
    }
}
