//! Batched prices and the live source's monthly budget (`GET /api/v2/prices`,
//! `GET /api/v2/budget`): the calls the portfolio, the watchlist and the monitor price through,
//! 50 style codes a request, so a live source with a monthly quota spends one call per 50; and
//! the flip list built from the same per-size prices (`GET /api/v2/flips`).

use std::collections::HashSet;

use super::{Budgeted, Client, ClientError, drop_empty_query};
use crate::model::budget::BudgetStatus;
use crate::model::portfolio::sku_key;
use crate::model::prices::{MAX_PRICE_CODES, PricesAnswer};
use crate::model::{Country, V2Envelope};

impl Client {
    /// `GET /api/v2/prices`: per size, the lowest ask of up to 50 products by style code.
    pub async fn prices(
        &self,
        codes: &[String],
        country: Country,
    ) -> Result<PricesAnswer, ClientError> {
        let mut url = self.url(&[("", "api"), ("", "v2"), ("", "prices")])?;
        {
            let mut pairs = url.query_pairs_mut();
            for code in codes {
                pairs.append_pair("sku", code);
            }
            if country != Country::Us {
                pairs.append_pair("market", country.code());
            }
        }
        drop_empty_query(&mut url);
        let envelope: V2Envelope<PricesAnswer> = self.get(url, Budgeted::No).await?;
        Ok(envelope.data)
    }

    /// The prices of every distinct style code of `codes` (dash, space and case ignored), in
    /// requests of [`MAX_PRICE_CODES`]; the answers joined. A request that fails ends it with
    /// its error.
    pub async fn prices_of_all(
        &self,
        codes: &[String],
        country: Country,
    ) -> Result<PricesAnswer, ClientError> {
        let mut seen = HashSet::new();
        let distinct: Vec<String> = codes
            .iter()
            .filter(|code| !code.trim().is_empty() && seen.insert(sku_key(code)))
            .cloned()
            .collect();
        let mut all = PricesAnswer {
            market: country.code().to_owned(),
            products: Vec::new(),
            missing: Vec::new(),
        };
        for chunk in distinct.chunks(MAX_PRICE_CODES) {
            let answer = self.prices(chunk, country).await?;
            all.products.extend(answer.products);
            all.missing.extend(answer.missing);
        }
        Ok(all)
    }

    /// `GET /api/v2/budget`: the live source's monthly budget; `None` for a source without one.
    pub async fn budget(&self) -> Result<Option<BudgetStatus>, ClientError> {
        let url = self.url(&[("", "api"), ("", "v2"), ("", "budget")])?;
        let envelope: V2Envelope<Option<BudgetStatus>> = self.get(url, Budgeted::No).await?;
        Ok(envelope.data)
    }
}

impl Client {
    /// `GET /api/v2/flips`: a page of the flip list, reckoned with `request`'s costs and fees.
    pub async fn flips(
        &self,
        request: &crate::model::flips::FlipsRequest,
    ) -> Result<crate::model::flips::FlipsAnswer, ClientError> {
        let mut url = self.url(&[("", "api"), ("", "v2"), ("", "flips")])?;
        url.query_pairs_mut().extend_pairs(request.query_pairs());
        drop_empty_query(&mut url);
        let envelope: V2Envelope<crate::model::flips::FlipsAnswer> =
            self.get(url, Budgeted::No).await?;
        Ok(envelope.data)
    }
}
