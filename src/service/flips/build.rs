//! One build of the flip list from what is in hand: each store's catalogue products in stock
//! (the crawl's last pass, or the simulated retailer's stock now), each code's prices per size in
//! the store's market, and each code's recent sales. Everything a request needs that does not
//! depend on its settings is made here once: the candidates (one per size in stock with a price
//! to sell at), and the sizes that can give no row whatever the settings, counted by why.

use std::collections::HashMap;
use std::sync::Arc;

use crate::catalogue::generate::normalize_sku;
use crate::figures::flips::{NoFlip, StoreSize, checked_buy, store_price_cents};
use crate::model::flips::{FlipMarket, HeldSales, SalesScope};
use crate::model::prices::CodePrices;
use crate::model::{Country, StoreUrl};
use crate::service::storefront::matching::Evidence;
use crate::service::storefront::offers::us_size;

/// The name the simulator's retailer goes by in the list.
pub const SIMULATED_STORE: &str = "retailer-a (simulated)";
/// Where the simulator's retailer "is": a reserved domain, never a real store.
pub const SIMULATED_ORIGIN: &str = "https://retailer-a.example";

/// A store as the build read it.
#[derive(Debug, Clone)]
pub struct StoreEntry {
    /// Its name (host).
    pub label: String,
    /// Its origin.
    pub origin: String,
    /// Its address, for a real store.
    pub url: Option<StoreUrl>,
    /// The simulator's retailer.
    pub simulated: bool,
    /// Its currency, when known.
    pub currency: Option<String>,
    /// When its prices and stock were read (Unix seconds).
    pub read_at_unix: Option<i64>,
    /// How its reading stands.
    pub status: String,
    /// Catalogue products in stock.
    pub products_in_stock: u32,
    /// Sizes in stock of them.
    pub sizes_in_stock: u32,
}

/// A catalogue product at one store.
#[derive(Debug, Clone)]
pub struct ProductEntry {
    /// Catalogue id.
    pub product_id: Arc<str>,
    /// Style code.
    pub style_code: Arc<str>,
    /// Title.
    pub title: Arc<str>,
    /// Brand.
    pub brand: Arc<str>,
    /// The store's handle (slug) for it.
    pub handle: Arc<str>,
    /// How it was matched.
    pub matched_by: &'static str,
    /// Its store (index into [`Built::stores`]).
    pub store: u16,
}

/// One size the store gave: what a candidate is made from.
#[derive(Debug, Clone)]
pub struct GatheredSize {
    /// The store's variant id.
    pub variant_id: u64,
    /// The label as written.
    pub label: String,
    /// The US size read from it ("" when none).
    pub us: String,
    /// The price in cents; `None` when none could be read.
    pub price_cents: Option<i64>,
}

/// A catalogue product at one store with its sizes in stock.
#[derive(Debug, Clone)]
pub struct GatheredProduct {
    /// What it is, and where.
    pub entry: ProductEntry,
    /// Its sizes in stock.
    pub sizes: Vec<GatheredSize>,
}

/// What the build gathered of the stores, before pricing.
#[derive(Debug, Default)]
pub struct Gathered {
    /// The stores.
    pub stores: Vec<StoreEntry>,
    /// Their catalogue products in stock.
    pub products: Vec<GatheredProduct>,
}

/// `Evidence` in the row's words.
#[must_use]
pub fn matched_by(by: Evidence) -> &'static str {
    match by {
        Evidence::Sku | Evidence::TitleOrHandle => "style code",
        Evidence::Barcode => "barcode",
    }
}

impl Gathered {
    /// Adds a crawled store.
    pub fn add_crawled(&mut self, stock: &crate::service::storefront::crawled_stores::FlipStock) {
        let store = u16::try_from(self.stores.len()).unwrap_or(u16::MAX);
        let mut sizes_in_stock = 0_u32;
        let products = stock.products();
        for product in products {
            sizes_in_stock += u32::try_from(product.sizes.len()).unwrap_or(u32::MAX);
            self.products.push(GatheredProduct {
                entry: ProductEntry {
                    product_id: Arc::clone(&product.product_id),
                    style_code: Arc::clone(&product.style_code),
                    title: Arc::clone(&product.title),
                    brand: Arc::clone(&product.brand),
                    handle: Arc::clone(&product.handle),
                    matched_by: matched_by(product.by),
                    store,
                },
                sizes: product
                    .sizes
                    .iter()
                    .map(|size| GatheredSize {
                        variant_id: size.variant_id,
                        label: size.label.clone(),
                        us: size.us.clone(),
                        price_cents: store_price_cents(&size.price),
                    })
                    .collect(),
            });
        }
        self.stores.push(StoreEntry {
            label: stock.store.label().to_owned(),
            origin: stock.store.as_str().to_owned(),
            url: Some(stock.store.clone()),
            simulated: false,
            currency: stock.currency.clone(),
            read_at_unix: stock.read_at_unix,
            status: stock.status.to_string(),
            products_in_stock: u32::try_from(products.len()).unwrap_or(u32::MAX),
            sizes_in_stock,
        });
    }

    /// Adds a store that is configured but not read yet (no row comes from it).
    pub fn add_unread(&mut self, store: &StoreUrl, status: String) {
        self.stores.push(StoreEntry {
            label: store.label().to_owned(),
            origin: store.as_str().to_owned(),
            url: Some(store.clone()),
            simulated: false,
            currency: None,
            read_at_unix: None,
            status,
            products_in_stock: 0,
            sizes_in_stock: 0,
        });
    }

    /// Adds the simulator's retailer, its stock read at `at_unix`.
    pub fn add_simulated(
        &mut self,
        stock: Vec<crate::service::marketplace::RetailStock>,
        at_unix: i64,
        limit: usize,
    ) {
        let store = u16::try_from(self.stores.len()).unwrap_or(u16::MAX);
        let mut sizes_in_stock = 0_u32;
        let products = u32::try_from(stock.len()).unwrap_or(u32::MAX);
        for product in stock {
            sizes_in_stock += u32::try_from(product.sizes.len()).unwrap_or(u32::MAX);
            self.products.push(GatheredProduct {
                entry: ProductEntry {
                    product_id: product.product_id.into(),
                    style_code: product.style_code.into(),
                    title: product.title.into(),
                    brand: product.brand.into(),
                    handle: product.slug.into(),
                    matched_by: "simulated",
                    store,
                },
                sizes: product
                    .sizes
                    .into_iter()
                    .map(|size| GatheredSize {
                        variant_id: size.variant_id,
                        us: us_size(&size.us).unwrap_or_default(),
                        label: size.label,
                        price_cents: Some(size.price_cents),
                    })
                    .collect(),
            });
        }
        self.stores.push(StoreEntry {
            label: SIMULATED_STORE.to_owned(),
            origin: SIMULATED_ORIGIN.to_owned(),
            url: None,
            simulated: true,
            currency: Some("USD".to_owned()),
            read_at_unix: Some(at_unix),
            status: format!(
                "no store is configured: the simulator's retailer-a stands in, its stock of the \
                 catalogue's {limit} most popular products simulated minute by minute"
            ),
            products_in_stock: products,
            sizes_in_stock,
        });
    }

    /// The market each store's currency is priced in (`None`: no market quotes it).
    #[must_use]
    pub fn market_of(&self, store: u16) -> Option<Country> {
        let currency = self.stores.get(usize::from(store))?.currency.as_deref()?;
        Country::ALL
            .into_iter()
            .find(|country| country.currency().eq_ignore_ascii_case(currency))
    }

    /// Per market, the distinct style codes in stock there (as first written), in order.
    #[must_use]
    pub fn codes_by_market(&self) -> Vec<(Country, Vec<String>)> {
        let mut markets: Vec<(Country, Vec<String>, std::collections::HashSet<String>)> =
            Vec::new();
        for product in &self.products {
            let Some(country) = self.market_of(product.entry.store) else {
                continue;
            };
            let at = if let Some(at) = markets.iter().position(|(c, ..)| *c == country) {
                at
            } else {
                markets.push((country, Vec::new(), std::collections::HashSet::new()));
                markets.len() - 1
            };
            let (_, codes, seen) = &mut markets[at];
            if seen.insert(normalize_sku(&product.entry.style_code)) {
                codes.push(product.entry.style_code.to_string());
            }
        }
        markets.sort_by_key(|(country, ..)| *country as u8);
        markets
            .into_iter()
            .map(|(country, codes, _)| (country, codes))
            .collect()
    }
}

/// Where one product's sell prices come from.
#[derive(Debug, Clone)]
pub struct PriceEntry {
    /// `kicksdb`, `kicksdb-mirror`, `catalogue`.
    pub source: String,
    /// When fetched (RFC 3339).
    pub as_of: String,
    /// The currency of the prices.
    pub currency: String,
}

/// One size in stock with a price to sell at: a possible row.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Its product (index into [`Built::products`]).
    pub product: u32,
    /// The store's label for the size.
    pub size_label: Box<str>,
    /// US size.
    pub us: Box<str>,
    /// The store's variant id.
    pub variant_id: u64,
    /// The store's price, in cents.
    pub buy_cents: i64,
    /// The marketplace's lowest ask, in cents.
    pub ask_cents: Option<i64>,
    /// Its highest bid, in cents (where the source gives bids).
    pub bid_cents: Option<i64>,
    /// Asks open for the size.
    pub asks: Option<u32>,
    /// Where the prices come from (index into [`Built::prices`]).
    pub price: u32,
    /// Recent sales: count, days, scope, and where from (index into [`Built::sales_sources`]).
    pub sales: Option<(u32, u32, SalesScope, u32)>,
}

/// What a request's ranking reads of one candidate, packed (32 bytes, the candidates' order):
/// every request reckons every candidate, and read from the whole [`Candidate`]s (some 120
/// bytes each, strings behind pointers) the pass was memory-bound, a few milliseconds at 100,000
/// sizes in stock.
#[derive(Debug, Clone, Copy)]
pub struct RankKey {
    /// The store's price, in cents.
    pub buy_cents: i64,
    /// The marketplace's lowest ask, in cents; 0 for none.
    pub ask_cents: i64,
    /// Its highest bid, in cents; 0 for none.
    pub bid_cents: i64,
    /// The store (index into [`Built::stores`]).
    pub store: u16,
    /// The brand (index into [`Built::brands`]).
    pub brand: u16,
    /// The US size (index into [`Built::sizes`]).
    pub size: u16,
}

/// Sizes that can give no row whatever the settings, by why.
#[derive(Debug, Clone, Default)]
pub struct SkipTally {
    /// `(why, count, one example)`, in the order first met.
    pub reasons: Vec<(NoFlip, u64, String)>,
}

impl SkipTally {
    /// Counts one size skipped for `why`.
    pub fn count(&mut self, why: NoFlip, example: impl FnOnce() -> String) {
        match self.reasons.iter_mut().find(|(w, ..)| *w == why) {
            Some((_, count, _)) => *count += 1,
            None => self.reasons.push((why, 1, example())),
        }
    }
}

/// The list as built, before any request's settings.
#[derive(Debug, Default)]
pub struct Built {
    /// When it was built (Unix seconds).
    pub at_unix: i64,
    /// The stores.
    pub stores: Vec<StoreEntry>,
    /// The products at each store.
    pub products: Vec<ProductEntry>,
    /// Where the prices come from.
    pub prices: Vec<PriceEntry>,
    /// Where the sales come from: `(source, as_of)`.
    pub sales_sources: Vec<(String, String)>,
    /// Every size that may give a row.
    pub candidates: Vec<Candidate>,
    /// What the ranking reads of each candidate, in the same order.
    pub ranks: Vec<RankKey>,
    /// The candidates' brands as the catalogue writes them, by [`RankKey::brand`].
    pub brands: Vec<Arc<str>>,
    /// The candidates' US sizes, by [`RankKey::size`].
    pub sizes: Vec<Box<str>>,
    /// The markets priced.
    pub markets: Vec<FlipMarket>,
    /// Sizes that give no row whatever the settings.
    pub skipped: SkipTally,
    /// The simulator's retailer stands in for the stores.
    pub simulated: bool,
    /// Sentences for the answer.
    pub notes: Vec<String>,
}

/// One code's prices by US size: `(ask cents, asks)`, and where they come from.
struct PricedCode {
    sizes: HashMap<String, (i64, Option<u32>)>,
    entry: u32,
}

/// The candidates of `gathered`, priced by `prices` (per market, by normalised code) with the
/// sales of `sales` (by normalised code), at `now_unix`.
#[must_use]
pub fn assemble(
    gathered: Gathered,
    prices: &HashMap<(Country, String), CodePrices>,
    sales: &HashMap<String, HeldSales>,
    markets: Vec<FlipMarket>,
    now_unix: i64,
) -> Built {
    let mut built = Built {
        at_unix: now_unix,
        markets,
        simulated: gathered.stores.iter().any(|s| s.simulated),
        ..Built::default()
    };
    let mut by_code: HashMap<(Country, String), PricedCode> = HashMap::new();
    let mut price_entries: HashMap<(String, String, String), u32> = HashMap::new();
    let mut sales_entries: HashMap<(String, String), u32> = HashMap::new();
    let stores = gathered.stores;
    let market_of = |store: u16| {
        let currency = stores.get(usize::from(store))?.currency.as_deref()?;
        Country::ALL
            .into_iter()
            .find(|country| country.currency().eq_ignore_ascii_case(currency))
    };
    for product in gathered.products {
        let entry = product.entry;
        let store = &stores[usize::from(entry.store)];
        let norm = normalize_sku(&entry.style_code);
        let country = market_of(entry.store);
        let code: Option<&PricedCode> = match country {
            None => None,
            Some(country) => {
                let key = (country, norm.clone());
                if !by_code.contains_key(&key)
                    && let Some(found) = prices.get(&key)
                {
                    let source = (
                        found.source.clone(),
                        found.as_of.clone(),
                        found.currency.clone(),
                    );
                    let next = u32::try_from(built.prices.len()).unwrap_or(u32::MAX);
                    let index = *price_entries.entry(source).or_insert_with(|| {
                        built.prices.push(PriceEntry {
                            source: found.source.clone(),
                            as_of: found.as_of.clone(),
                            currency: found.currency.clone(),
                        });
                        next
                    });
                    let mut sizes = HashMap::new();
                    for size in &found.sizes {
                        let cents = (size.lowest_ask * 100.0).round() as i64;
                        if let Some(us) = us_size(&size.size)
                            && cents > 0
                        {
                            sizes.entry(us).or_insert((cents, size.asks));
                        }
                    }
                    by_code.insert(
                        key.clone(),
                        PricedCode {
                            sizes,
                            entry: index,
                        },
                    );
                }
                by_code.get(&key)
            }
        };
        let held = sales.get(&norm);
        let product_index = u32::try_from(built.products.len()).unwrap_or(u32::MAX);
        let mut kept_any = false;
        for size in product.sizes {
            let view = StoreSize {
                product_id: &entry.product_id,
                style_code: &entry.style_code,
                title: &entry.title,
                brand: &entry.brand,
                size: &size.us,
                size_label: &size.label,
                store: &store.label,
                store_origin: &store.origin,
                store_url: "",
                simulated: store.simulated,
                matched_by: entry.matched_by,
                price_cents: size.price_cents,
                currency: store.currency.as_deref(),
                read_at_unix: store.read_at_unix,
            };
            let example = || format!("{} US {} at {}", entry.style_code, size.label, store.label);
            let market_currency = country.map_or("", Country::currency);
            let buy = match checked_buy(&view, market_currency) {
                Ok(buy) => buy,
                Err(why) => {
                    built.skipped.count(why, example);
                    continue;
                }
            };
            let Some((ask, asks)) = code
                .and_then(|code| code.sizes.get(size.us.as_str()))
                .copied()
            else {
                built.skipped.count(NoFlip::NoPriceToSell, example);
                continue;
            };
            let sales_figure = held.and_then(|held| {
                let source = (held.source.clone(), held.as_of.clone());
                let next = u32::try_from(built.sales_sources.len()).unwrap_or(u32::MAX);
                let index = *sales_entries.entry(source.clone()).or_insert_with(|| {
                    built.sales_sources.push(source);
                    next
                });
                let per_size = held
                    .sizes
                    .iter()
                    .find(|(label, _)| us_size(label).as_deref() == Some(size.us.as_str()))
                    .map(|(_, count)| (*count, 30, SalesScope::Size, index));
                per_size.or_else(|| {
                    held.product_count
                        .map(|count| (count, held.product_days, SalesScope::Product, index))
                })
            });
            kept_any = true;
            built.candidates.push(Candidate {
                product: product_index,
                size_label: size.label.into_boxed_str(),
                us: size.us.into_boxed_str(),
                variant_id: size.variant_id,
                buy_cents: buy,
                ask_cents: Some(ask),
                bid_cents: None,
                asks,
                price: code.map_or(0, |code| code.entry),
                sales: sales_figure,
            });
        }
        if kept_any {
            built.products.push(entry);
        }
    }
    built.stores = stores;
    built.rank();
    built
}

impl Built {
    /// Packs what the ranking reads of each candidate ([`Built::ranks`]), the brands and sizes
    /// numbered. A candidate past 65,535 brands or sizes (never met) shares the last number, so
    /// a filter on it may keep a row it should not: a row still reckoned right, never lost.
    pub(crate) fn rank(&mut self) {
        let mut brands: HashMap<Arc<str>, u16> = HashMap::new();
        let mut sizes: HashMap<Box<str>, u16> = HashMap::new();
        let number = |len: usize| u16::try_from(len).unwrap_or(u16::MAX);
        self.ranks = self
            .candidates
            .iter()
            .map(|candidate| {
                let product = &self.products[candidate.product as usize];
                let brand = *brands.entry(Arc::clone(&product.brand)).or_insert_with(|| {
                    self.brands.push(Arc::clone(&product.brand));
                    number(self.brands.len() - 1)
                });
                let size = *sizes.entry(candidate.us.clone()).or_insert_with(|| {
                    self.sizes.push(candidate.us.clone());
                    number(self.sizes.len() - 1)
                });
                RankKey {
                    buy_cents: candidate.buy_cents,
                    ask_cents: candidate.ask_cents.unwrap_or(0),
                    bid_cents: candidate.bid_cents.unwrap_or(0),
                    store: product.store,
                    brand,
                    size,
                }
            })
            .collect();
    }
}
