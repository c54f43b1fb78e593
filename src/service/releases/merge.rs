//! One entry per pair: the calendar's candidates from every source joined by style code (any
//! code of one matching any code of another, dash, space and case ignored, two codes in one
//! field each counted: `model::releases::style_code_keys`), and a store product the crawl
//! matched to a catalogue product joined to it by that product (a match by barcode counts).
//! A store product with no catalogue match is looked for in the other candidates' codes the
//! way the crawl matches stores (`storefront::matching`: a code in a SKU with the size after
//! it, in the title or in the handle). Pure: no I/O.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};

use crate::model::releases::{Mechanics, Release, ReleaseSource, style_code_keys};
use crate::service::storefront::matching::{CodeIndex, Matched, ProductKeys, match_by_code};

/// What one source says of a coming pair.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// `catalogue`, `snkrs` or `store`.
    pub kind: &'static str,
    /// Which one (the catalogue's source, `snkrs`, the store's address).
    pub name: String,
    /// The catalogue's product UUID (for a store product: the one the crawl matched).
    pub product_id: Option<String>,
    /// Style codes as written.
    pub codes: Vec<String>,
    /// For a store product the crawl did not match: its SKUs, title and handle.
    pub store_texts: Option<(String, String, Vec<String>)>,
    /// Title.
    pub title: String,
    /// Brand.
    pub brand: String,
    /// Silhouette, where known.
    pub model: String,
    /// The day.
    pub date: NaiveDate,
    /// The time, where given.
    pub starts_at: Option<DateTime<Utc>>,
    /// Retail in cents and its currency.
    pub retail: Option<(i64, String)>,
    /// The page.
    pub link: String,
    /// A picture.
    pub image: String,
    /// US sizes.
    pub sizes: Vec<String>,
    /// A launch's mechanics.
    pub mechanics: Option<Mechanics>,
    /// Labels (`collaboration`, ...), from the catalogue.
    pub labels: Vec<String>,
    /// When the source was read.
    pub read_at: Option<String>,
}

/// A merged entry before its estimate: the wire entry, and what the estimate is made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The entry (`estimate` still empty).
    pub release: Release,
    /// Its day.
    pub date: NaiveDate,
    /// Its time.
    pub starts_at: Option<DateTime<Utc>>,
    /// Retail in cents and currency.
    pub retail: Option<(i64, String)>,
    /// Silhouette, where known.
    pub model: String,
    /// Labels.
    pub labels: Vec<String>,
}

/// Union-find over candidate indexes.
struct Groups(Vec<usize>);

impl Groups {
    fn root(&mut self, mut at: usize) -> usize {
        while self.0[at] != at {
            self.0[at] = self.0[self.0[at]];
            at = self.0[at];
        }
        at
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        if a != b {
            self.0[a.max(b)] = a.min(b);
        }
    }
}

/// Which source's word counts first for a field: the catalogue's, then a launch's, then a
/// store's.
fn rank(kind: &str) -> u8 {
    match kind {
        "catalogue" => 0,
        "snkrs" => 1,
        _ => 2,
    }
}

fn money(cents: i64) -> f64 {
    cents as f64 / 100.0
}

/// Joins `candidates` into entries, in date order (then time, then title).
#[must_use]
pub fn merge(candidates: &[Candidate]) -> Vec<Merged> {
    let mut groups = Groups((0..candidates.len()).collect());
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for (at, candidate) in candidates.iter().enumerate() {
        let mut keys: Vec<String> = candidate
            .codes
            .iter()
            .flat_map(|code| style_code_keys(code))
            .collect();
        if let Some(id) = &candidate.product_id {
            keys.push(format!("id:{id}"));
        }
        for key in keys {
            match by_key.get(&key) {
                Some(&first) => groups.join(first, at),
                None => {
                    by_key.insert(key, at);
                }
            }
        }
    }
    // Store products the crawl did not match: by the codes in their SKUs, title and handle. A
    // code is indexed under its group, so that two sources writing one pair's code do not make
    // it look like two products.
    let mut coded: Vec<(String, i64)> = Vec::new();
    for (at, candidate) in candidates.iter().enumerate() {
        if candidate.store_texts.is_none() {
            let root = i64::try_from(groups.root(at)).unwrap_or(i64::MAX);
            coded.extend(candidate.codes.iter().map(|code| (code.clone(), root)));
        }
    }
    let index = CodeIndex::from_codes(coded.iter().map(|(code, at)| (code.as_str(), *at)));
    for (at, candidate) in candidates.iter().enumerate() {
        let Some((title, handle, skus)) = &candidate.store_texts else {
            continue;
        };
        let skus: Vec<&str> = skus.iter().map(String::as_str).collect();
        let keys = ProductKeys {
            title,
            handle,
            skus: &skus,
            barcodes: &[],
        };
        if let Some(Matched::Product { pk, .. }) = match_by_code(&index, &keys) {
            groups.join(usize::try_from(pk).unwrap_or(at), at);
        }
    }
    let mut members: HashMap<usize, Vec<usize>> = HashMap::new();
    for at in 0..candidates.len() {
        let root = groups.root(at);
        members.entry(root).or_default().push(at);
    }
    let mut merged: Vec<Merged> = members
        .into_values()
        .map(|mut group| {
            group.sort_by_key(|&at| (rank(candidates[at].kind), at));
            entry(&group.iter().map(|&at| &candidates[at]).collect::<Vec<_>>())
        })
        .collect();
    merged.sort_by(|a, b| {
        (a.date, a.starts_at, &a.release.title).cmp(&(b.date, b.starts_at, &b.release.title))
    });
    merged
}

/// The entry of one group, its candidates in order of [`rank`].
fn entry(group: &[&Candidate]) -> Merged {
    let first = group[0];
    let pick = |field: &dyn Fn(&Candidate) -> String| {
        group
            .iter()
            .map(|c| field(c))
            .find(|text| !text.trim().is_empty())
            .unwrap_or_default()
    };
    let mechanics = group.iter().find_map(|c| c.mechanics.clone());
    let launch_start = mechanics
        .as_ref()
        .and_then(|m| DateTime::parse_from_rfc3339(&m.starts_at).ok())
        .map(|t| t.with_timezone(&Utc));
    let starts_at = launch_start.or_else(|| group.iter().find_map(|c| c.starts_at));
    let date = starts_at.map_or(first.date, |t| t.date_naive());
    // The launch's price first (what the pair costs at the drop), then the catalogue's retail,
    // then a store's price for it.
    let retail = mechanics
        .as_ref()
        .and_then(|m| {
            let msrp = m.msrp?;
            Some(((msrp * 100.0).round() as i64, m.currency.clone()))
        })
        .filter(|(_, currency)| !currency.is_empty())
        .or_else(|| {
            let mut by_rank: Vec<&&Candidate> = group.iter().collect();
            by_rank.sort_by_key(|c| i32::from(c.kind == "store"));
            by_rank.iter().find_map(|c| c.retail.clone())
        });
    let mut codes: Vec<String> = Vec::new();
    let mut sizes: Vec<String> = Vec::new();
    for candidate in group {
        for code in &candidate.codes {
            if !codes.contains(code) {
                codes.push(code.clone());
            }
        }
        for size in &candidate.sizes {
            if !sizes.contains(size) {
                sizes.push(size.clone());
            }
        }
    }
    let method = mechanics
        .as_ref()
        .map(|m| m.method.clone())
        .filter(|m| !m.is_empty());
    let sources = group
        .iter()
        .map(|c| ReleaseSource {
            kind: c.kind.to_owned(),
            name: c.name.clone(),
            release_date: c.date.format("%Y-%m-%d").to_string(),
            starts_at: c
                .starts_at
                .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            link: c.link.clone(),
            style_code: c.codes.first().cloned().unwrap_or_default(),
            read_at: c.read_at.clone(),
        })
        .collect();
    let release = Release {
        product_id: group.iter().find_map(|c| c.product_id.clone()),
        title: pick(&|c| c.title.clone()),
        brand: pick(&|c| c.brand.clone()),
        style_code: codes.first().cloned().unwrap_or_default(),
        style_codes: codes,
        release_date: date.format("%Y-%m-%d").to_string(),
        starts_at: starts_at.map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
        retail_price: retail.as_ref().map(|(cents, _)| money(*cents)),
        currency: retail
            .as_ref()
            .map(|(_, currency)| currency.clone())
            .unwrap_or_default(),
        method,
        mechanics,
        estimate: None,
        no_estimate: None,
        sizes,
        image: pick(&|c| c.image.clone()),
        sources,
    };
    Merged {
        release,
        date,
        starts_at,
        retail,
        model: pick(&|c| c.model.clone()),
        labels: group.iter().flat_map(|c| c.labels.clone()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(kind: &'static str, code: &str, day: u32) -> Candidate {
        Candidate {
            kind,
            name: kind.to_owned(),
            product_id: None,
            codes: vec![code.to_owned()],
            store_texts: None,
            title: format!("{kind} title"),
            brand: String::new(),
            model: String::new(),
            date: NaiveDate::from_ymd_opt(2026, 12, day).unwrap(),
            starts_at: None,
            retail: None,
            link: format!("https://{kind}.example/{code}"),
            image: String::new(),
            sizes: vec!["9".into()],
            mechanics: None,
            labels: Vec::new(),
            read_at: None,
        }
    }

    #[test]
    fn one_pair_from_three_sources_is_one_entry_whatever_the_codes_look_like() {
        let mut catalogue = candidate("catalogue", "FV5029-141", 5);
        catalogue.product_id = Some("uuid-1".into());
        catalogue.retail = Some((21_500, "USD".into()));
        let launch = candidate("snkrs", "FV5029 141", 5);
        let mut store = candidate("store", "", 4);
        store.codes.clear();
        store.store_texts = Some((
            "Air Jordan 4 Retro Military Blue".into(),
            "aj4-military-blue".into(),
            vec!["fv5029141-095".into()],
        ));
        let two_codes = candidate("catalogue", "315122-111/CW2288-111", 9);
        let other = candidate("snkrs", "CW2288 111", 9);
        let unrelated = candidate("catalogue", "DD1391-100", 7);
        let merged = merge(&[catalogue, launch, store, two_codes, other, unrelated]);
        assert_eq!(merged.len(), 3, "{merged:#?}");
        let first = &merged[0].release;
        assert_eq!(first.product_id.as_deref(), Some("uuid-1"));
        assert_eq!(first.title, "catalogue title");
        let kinds: Vec<&str> = first.sources.iter().map(|s| s.kind.as_str()).collect();
        assert_eq!(kinds, ["catalogue", "snkrs", "store"]);
        assert_eq!(first.retail_price, Some(215.0));
        assert_eq!(merged[1].release.style_code, "DD1391-100");
        assert_eq!(merged[2].release.sources.len(), 2);
    }

    #[test]
    fn a_launch_sets_the_time_the_method_and_the_price() {
        let mut catalogue = candidate("catalogue", "DZ5485-612", 5);
        catalogue.retail = Some((18_000, "USD".into()));
        let mut launch = candidate("snkrs", "DZ5485-612", 5);
        launch.mechanics = Some(Mechanics {
            source: "snkrs".into(),
            method: "draw".into(),
            method_code: "DAN".into(),
            starts_at: "2026-12-06T15:00:00Z".into(),
            msrp: Some(190.0),
            currency: "USD".into(),
            country: "US".into(),
            quantity_limit: Some(1),
            exclusive_access: false,
            invitation_only: false,
            sizes: Vec::new(),
            read_at: String::new(),
        });
        let merged = merge(&[catalogue, launch]);
        assert_eq!(merged.len(), 1);
        let release = &merged[0].release;
        assert_eq!(release.method.as_deref(), Some("draw"));
        assert_eq!(release.release_date, "2026-12-06");
        assert_eq!(release.starts_at.as_deref(), Some("2026-12-06T15:00:00Z"));
        assert_eq!(release.retail_price, Some(190.0));
    }
}
