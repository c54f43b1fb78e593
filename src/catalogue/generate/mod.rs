//! The deterministic catalogue generator: `solescope catalogue generate`.
//!
//! Same options (seed, product count, `as_of` date) give identical data. The generator draws
//! from [`data`]: real silhouettes, colorways, size charts and each brand's style-code format;
//! GTINs carry valid check digits and are unique; weekly orders have release spikes, decay,
//! seasonality and a long tail of slow sellers, and `position` is a true weekly ranking.
//!
//! The file is written to `<out>.partial` and renamed over `out` only when complete, so a
//! failed or interrupted run never leaves a half-written catalogue behind.

pub mod data;

use std::collections::HashSet;
use std::path::Path;

use chrono::{Datelike, Duration, NaiveDate};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::{Connection, params};

use self::data::{CodeFormat, SILHOUETTES, Silhouette, SizeRun};
use super::{CatalogueError, gtin, keys};
use crate::model::Tier;

/// Weeks of order history per product.
pub const WEEKS: usize = 52;

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    /// Number of products.
    pub products: u32,
    /// Seed of the random generator.
    pub seed: u64,
    /// The day the catalogue describes: the newest weekly record is the last full week before it.
    pub as_of: NaiveDate,
    /// Whether to store the demo API keys (`demo-free`, `demo-pro`, `demo-ultra`).
    pub demo_keys: bool,
}

/// The demo keys, one per tier.
pub const DEMO_KEYS: [(&str, Tier); 3] = [
    ("demo-free", Tier::Free),
    ("demo-pro", Tier::Pro),
    ("demo-ultra", Tier::Ultra),
];

/// Where the generator is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Writing products and variants.
    Products,
    /// Ranking and writing weekly orders.
    Orders,
    /// Building indexes.
    Indexes,
}

/// A progress report: `done` of `total` units of `phase`.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// The current phase.
    pub phase: Phase,
    /// Units done.
    pub done: u64,
    /// Units in all.
    pub total: u64,
}

/// What was written.
#[derive(Debug, Clone, Copy)]
pub struct GenerateReport {
    /// Products written.
    pub products: u64,
    /// Variants written.
    pub variants: u64,
    /// Weekly order records written.
    pub weekly_orders: u64,
}

/// The Monday of the newest full week before `as_of`.
pub fn newest_week_start(as_of: NaiveDate) -> NaiveDate {
    let monday = as_of - Duration::days(i64::from(as_of.weekday().num_days_from_monday()));
    monday - Duration::days(7)
}

/// Generates a catalogue at `out` (replacing any file there only once the new one is complete).
pub fn generate(
    options: &GenerateOptions,
    out: &Path,
    progress: &mut dyn FnMut(Progress),
) -> Result<GenerateReport, CatalogueError> {
    let partial = super::partial_path(out);
    // A stale partial file is from an interrupted run: it is ours to replace.
    super::remove_if_exists(&partial)?;
    let result = generate_into(options, &partial, progress);
    match result {
        Ok(report) => {
            std::fs::rename(&partial, out).map_err(|source| CatalogueError::Io {
                path: out.to_path_buf(),
                source,
            })?;
            Ok(report)
        }
        Err(err) => {
            // Best effort: the error being returned is what matters.
            let _ = std::fs::remove_file(&partial);
            Err(err)
        }
    }
}

fn generate_into(
    options: &GenerateOptions,
    path: &Path,
    progress: &mut dyn FnMut(Progress),
) -> Result<GenerateReport, CatalogueError> {
    let mut conn = Connection::open(path)?;
    // The file is private until renamed, so durability during the build buys nothing.
    conn.execute_batch(
        "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144;",
    )?;
    let (tables, indexes) = super::schema_parts();
    conn.execute_batch(tables)?;

    let tx = conn.transaction()?;
    let mut generator = Generator::new(options);
    let total = u64::from(options.products);
    let mut orders: Vec<[u32; WEEKS]> = Vec::with_capacity(options.products as usize);
    let mut aovs: Vec<u32> = Vec::with_capacity(options.products as usize);
    let mut variants_written = 0u64;
    {
        let mut writer = Writer::new(&tx)?;
        for index in 0..options.products {
            let product = generator.product(index);
            variants_written += product.variants.len() as u64;
            writer.write(&product)?;
            orders.push(product.weekly_orders);
            aovs.push(product.aov_cents);
            if index % 1024 == 0 {
                progress(Progress {
                    phase: Phase::Products,
                    done: u64::from(index),
                    total,
                });
            }
        }
    }
    progress(Progress {
        phase: Phase::Products,
        done: total,
        total,
    });

    let positions = weekly_positions(&orders, progress);
    write_orders(&tx, &generator, &orders, &aovs, &positions)?;

    // Trending: the top 2% by recent orders.
    tx.execute(
        "UPDATE products SET trending = 1 WHERE pk IN
           (SELECT pk FROM products ORDER BY popularity DESC, pk LIMIT ?1)",
        [i64::from(options.products / 50)],
    )?;
    if options.demo_keys {
        for (key, tier) in DEMO_KEYS {
            keys::insert(&tx, key, tier, "demo", &options.as_of.to_string())?;
        }
    }
    super::write_meta(
        &tx,
        &[
            (
                "kind",
                if options.demo_keys {
                    "demo"
                } else {
                    "generated"
                },
            ),
            (
                "generator",
                concat!("solescope ", env!("CARGO_PKG_VERSION")),
            ),
            ("seed", &options.seed.to_string()),
            ("as_of", &options.as_of.to_string()),
            (
                "built_at",
                &chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            ),
        ],
    )?;
    progress(Progress {
        phase: Phase::Indexes,
        done: 0,
        total: 1,
    });
    tx.execute_batch(indexes)?;
    tx.commit()?;
    conn.pragma_update(None, "user_version", super::SCHEMA_VERSION)?;
    conn.execute_batch("PRAGMA journal_mode = DELETE; ANALYZE;")?;
    progress(Progress {
        phase: Phase::Indexes,
        done: 1,
        total: 1,
    });
    Ok(GenerateReport {
        products: total,
        variants: variants_written,
        weekly_orders: total * WEEKS as u64,
    })
}

/// Seconds since the Unix epoch at 00:00:00Z of `day`, as `weekly_orders.week_start` stores it.
pub fn week_start_seconds(day: NaiveDate) -> i64 {
    day.and_hms_opt(0, 0, 0)
        .map_or(0, |time| time.and_utc().timestamp())
}

/// Ranks every product in every week: 1 = most orders, ties broken by catalogue order.
fn weekly_positions(
    orders: &[[u32; WEEKS]],
    progress: &mut dyn FnMut(Progress),
) -> Vec<[u32; WEEKS]> {
    let mut positions = vec![[0u32; WEEKS]; orders.len()];
    let mut ranked: Vec<u32> = (0..orders.len() as u32).collect();
    for week in 0..WEEKS {
        ranked.sort_unstable_by_key(|&i| (std::cmp::Reverse(orders[i as usize][week]), i));
        for (rank, &i) in ranked.iter().enumerate() {
            positions[i as usize][week] = rank as u32 + 1;
        }
        progress(Progress {
            phase: Phase::Orders,
            done: week as u64,
            total: WEEKS as u64,
        });
    }
    positions
}

fn write_orders(
    tx: &rusqlite::Transaction<'_>,
    generator: &Generator,
    orders: &[[u32; WEEKS]],
    aovs: &[u32],
    positions: &[[u32; WEEKS]],
) -> Result<(), CatalogueError> {
    // One statement per product (52 rows) keeps the per-statement overhead off the hot path.
    let row = "(?,?,?,?,?)";
    let sql = format!(
        "INSERT INTO weekly_orders (product_pk, week_start, position, orders, aov_cents) VALUES {}",
        vec![row; WEEKS].join(",")
    );
    let mut statement = tx.prepare(&sql)?;
    let weeks: Vec<i64> = (0..WEEKS)
        .map(|w| week_start_seconds(generator.newest_week - Duration::weeks(w as i64)))
        .collect();
    let mut values: Vec<rusqlite::types::Value> = Vec::with_capacity(WEEKS * 5);
    for (i, product_orders) in orders.iter().enumerate() {
        values.clear();
        let pk = i as i64 + 1;
        let mut noise =
            ChaCha8Rng::seed_from_u64(generator.seed ^ (pk as u64).wrapping_mul(0x9E37));
        for week in 0..WEEKS {
            let count = product_orders[week];
            // Weeks without orders have no order value.
            let aov = if count == 0 {
                0
            } else {
                let wobble: f64 = noise.random_range(0.95..1.05);
                (f64::from(aovs[i]) * wobble).round() as i64
            };
            values.push(pk.into());
            values.push(weeks[week].into());
            values.push(i64::from(positions[i][week]).into());
            values.push(i64::from(count).into());
            values.push(aov.into());
        }
        statement.execute(rusqlite::params_from_iter(values.iter()))?;
    }
    Ok(())
}

/// One generated product with everything that hangs off it.
struct GeneratedProduct {
    id: String,
    slug: String,
    sku: String,
    title: String,
    silhouette: &'static Silhouette,
    run: SizeRun,
    color: String,
    description: Option<String>,
    release_date: NaiveDate,
    release_year_only: bool,
    retail_usd_cents: i64,
    retail_eur_cents: i64,
    availability: &'static str,
    labels: Vec<&'static str>,
    inserted_at: String,
    variants: Vec<GeneratedVariant>,
    weekly_orders: [u32; WEEKS],
    aov_cents: u32,
}

struct GeneratedVariant {
    id: uuid::Uuid,
    size: &'static data::SizeRow,
    gtin: String,
    price_usd_cents: i64,
    price_eur_cents: i64,
}

struct Generator {
    rng: ChaCha8Rng,
    seed: u64,
    as_of: NaiveDate,
    newest_week: NaiveDate,
    cumulative_weights: Vec<u32>,
    skus: HashSet<String>,
    named_used: HashSet<(usize, usize, u8)>,
    nike_model_codes: Vec<Vec<String>>,
    gtin_counter: u64,
    /// USD to EUR, as used for resale prices of the FR dataset.
    eur_per_usd: f64,
}

impl Generator {
    fn new(options: &GenerateOptions) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        let mut cumulative_weights = Vec::with_capacity(SILHOUETTES.len());
        let mut sum = 0;
        for silhouette in SILHOUETTES {
            sum += silhouette.weight;
            cumulative_weights.push(sum);
        }
        // A handful of six-character model codes per silhouette and run, as Nike reuses them
        // across colorways (`DZ5485-612`, `DZ5485-031`).
        let nike_model_codes = (0..SILHOUETTES.len() * 4)
            .map(|_| (0..6).map(|_| nike_model_code(&mut rng)).collect())
            .collect();
        let gtin_counter = rng.random_range(0..10_000_000);
        Self {
            rng,
            seed: options.seed,
            as_of: options.as_of,
            newest_week: newest_week_start(options.as_of),
            cumulative_weights,
            skus: HashSet::new(),
            named_used: HashSet::new(),
            nike_model_codes,
            gtin_counter,
            eur_per_usd: 0.93,
        }
    }

    fn uuid(&mut self) -> uuid::Uuid {
        uuid::Builder::from_random_bytes(self.rng.random()).into_uuid()
    }

    fn pick_silhouette(&mut self) -> (usize, &'static Silhouette) {
        let total = *self.cumulative_weights.last().unwrap_or(&1);
        let roll = self.rng.random_range(0..total);
        let index = self.cumulative_weights.partition_point(|&w| w <= roll);
        (index, &SILHOUETTES[index])
    }

    fn product(&mut self, _index: u32) -> GeneratedProduct {
        let (sil_index, silhouette) = self.pick_silhouette();
        let run_index = self.rng.random_range(0..silhouette.runs.len());
        // Men's runs dominate real catalogues.
        let run = if self.rng.random_bool(0.45) {
            silhouette.runs[0]
        } else {
            silhouette.runs[run_index]
        };

        let (nickname, color, retro_year) = self.colorway(sil_index, silhouette, run);
        let release_date = self.release_date(silhouette, retro_year);
        let year_only = release_date.year() < 2018 && self.rng.random_bool(0.4);
        let sku = self.style_code(sil_index, silhouette, run, &color);

        let mut title = match silhouette.brand {
            // Jordan models already start with "Air Jordan".
            "Jordan" => format!("{} '{nickname}'", silhouette.model),
            brand => format!("{brand} {} '{nickname}'", silhouette.model),
        };
        if let Some(year) = retro_year {
            title = format!("{title} ({year})");
        }
        title.push_str(run.title_suffix());
        let slug = format!("{}-{}", slugify(&title), slugify(&sku));

        let retail_usd = retail_usd(silhouette, run, &mut self.rng);
        let retail_eur = (retail_usd as f64 * 1.05 / 5.0).round() as i64 * 5;

        // Resale level: the silhouette's hype, the colorway's own, and the odd grail, only among
        // the named colorways (nobody pays $2,000 for an invented one).
        let mut level = silhouette.hype * lognormal(&mut self.rng, 0.0, 0.3);
        let named = silhouette.named.iter().any(|(name, _)| *name == nickname);
        if named && self.rng.random_bool(0.04) {
            level *= self.rng.random_range(3.0..8.0);
        }
        let eur_factor = self.eur_per_usd * self.rng.random_range(0.97..1.08);
        let chart = run.chart();
        let mut variants = Vec::with_capacity(chart.len());
        for (position, size) in chart.iter().enumerate() {
            let premium = size_premium(position, chart.len());
            let noise = 1.0 + self.rng.random_range(-0.05..0.05);
            let usd = (retail_usd as f64 * level * premium * noise)
                .round()
                .max(25.0);
            let eur = (usd * eur_factor).round();
            let gtin = self.gtin(silhouette.code);
            let id = self.uuid();
            variants.push(GeneratedVariant {
                id,
                size,
                gtin,
                price_usd_cents: usd as i64 * 100,
                price_eur_cents: eur as i64 * 100,
            });
        }
        let upcoming = release_date > self.as_of;
        let weekly_orders = self.weekly_orders(level, release_date);
        let avg_usd =
            variants.iter().map(|v| v.price_usd_cents).sum::<i64>() / variants.len() as i64;

        let availability = if upcoming {
            "preorder"
        } else if self.rng.random_bool(0.1) {
            "out of stock"
        } else {
            "in stock"
        };
        let mut labels = Vec::new();
        if upcoming || (self.as_of - release_date).num_days() < 60 {
            labels.push("new release");
        }
        if retro_year.is_some() {
            labels.push("retro");
        }
        if self.rng.random_bool(0.08) {
            labels.push(data::LABELS[self.rng.random_range(0..data::LABELS.len())]);
        }
        labels.dedup();

        let description = match self.rng.random_range(0..100) {
            0..8 => None,
            8..12 => Some(String::new()),
            _ => Some(describe(&title, silhouette, &color, &sku, release_date)),
        };
        let inserted = release_date.min(self.as_of) - Duration::days(self.rng.random_range(0..40));
        let inserted_at = format!(
            "{inserted}T{:02}:{:02}:{:02}Z",
            self.rng.random_range(0..24),
            self.rng.random_range(0..60),
            self.rng.random_range(0..60)
        );
        let id = self.uuid().to_string();
        GeneratedProduct {
            id,
            slug,
            sku,
            title,
            silhouette,
            run,
            color,
            description,
            release_date,
            release_year_only: year_only,
            retail_usd_cents: retail_usd * 100,
            retail_eur_cents: retail_eur * 100,
            availability,
            labels,
            inserted_at,
            variants,
            weekly_orders,
            aov_cents: avg_usd as u32,
        }
    }

    /// A named colorway the first time it comes up for a run, then invented ones and retros.
    fn colorway(
        &mut self,
        sil_index: usize,
        silhouette: &Silhouette,
        run: SizeRun,
    ) -> (String, String, Option<i32>) {
        let named_index = self.rng.random_range(0..silhouette.named.len());
        if self.rng.random_bool(0.25) {
            let (nickname, color) = silhouette.named[named_index];
            let fresh = self.named_used.insert((sil_index, named_index, run as u8));
            // A named colorway seen again is a retro of it, dated like marketplaces do.
            let year = (!fresh).then(|| {
                self.rng
                    .random_range(silhouette.since.max(2012)..=self.as_of.year())
            });
            return (nickname.to_owned(), color.to_owned(), year);
        }
        let colours = data::COLOURS;
        let first = colours[self.rng.random_range(0..colours.len())];
        let mut second = colours[self.rng.random_range(0..colours.len())];
        if second == first {
            second = "White";
        }
        let third = colours[self.rng.random_range(0..colours.len())];
        let color = match silhouette.code {
            CodeFormat::Nike => format!("{first}/{second}-{third}"),
            _ => format!("{first}/{second}/{third}"),
        };
        let nickname = if self.rng.random_bool(0.35) {
            let word = data::NICKNAME_WORDS[self.rng.random_range(0..data::NICKNAME_WORDS.len())];
            format!("{word} {first}")
        } else {
            format!("{first} {second}")
        };
        (nickname, color, None)
    }

    fn release_date(&mut self, silhouette: &Silhouette, retro_year: Option<i32>) -> NaiveDate {
        let as_of = self.as_of;
        if let Some(year) = retro_year {
            let day = self.rng.random_range(1..=365);
            let date = NaiveDate::from_yo_opt(year, day).unwrap_or(as_of);
            return date.min(as_of);
        }
        // Catalogues grow: more products released recently; 1% announced but not yet out.
        if self.rng.random_bool(0.01) {
            return as_of + Duration::days(self.rng.random_range(7..70));
        }
        let first = NaiveDate::from_ymd_opt(silhouette.since.max(2010), 1, 1).unwrap_or(as_of);
        let span = (as_of - first).num_days().max(1) as f64;
        let back = span * self.rng.random::<f64>().powf(1.8);
        as_of - Duration::days(back as i64)
    }

    fn style_code(
        &mut self,
        sil_index: usize,
        silhouette: &Silhouette,
        run: SizeRun,
        color: &str,
    ) -> String {
        loop {
            let code = match silhouette.code {
                CodeFormat::Nike => {
                    let pool = &self.nike_model_codes[sil_index * 4 + run as usize];
                    let model = if self.rng.random_bool(0.9) {
                        pool[self.rng.random_range(0..pool.len())].clone()
                    } else {
                        nike_model_code(&mut self.rng)
                    };
                    let lead = nike_colour_digit(color);
                    format!("{model}-{lead}{:02}", self.rng.random_range(0..100))
                }
                CodeFormat::Adidas => format!(
                    "{}{}{:04}",
                    letter(&mut self.rng),
                    letter(&mut self.rng),
                    self.rng.random_range(0..10_000)
                ),
                CodeFormat::NewBalance => {
                    let prefix = match run {
                        SizeRun::Men => ["M", "U", "BB"][self.rng.random_range(0..3)],
                        SizeRun::Women => "W",
                        SizeRun::GradeSchool => "GC",
                        SizeRun::Toddler => "IV",
                    };
                    let suffix = if self.rng.random_bool(0.5) {
                        format!("{}", self.rng.random_range(1..10))
                    } else {
                        String::from(letter(&mut self.rng))
                    };
                    format!(
                        "{prefix}{}{}{}{suffix}",
                        silhouette.code_model,
                        letter(&mut self.rng),
                        letter(&mut self.rng)
                    )
                }
                CodeFormat::Asics => format!(
                    "{}A{:03}-{:03}",
                    silhouette.code_model,
                    self.rng.random_range(0..1000),
                    self.rng.random_range(0..1000)
                ),
                CodeFormat::Converse => format!("A{:05}C", self.rng.random_range(0..100_000)),
                CodeFormat::Puma => format!(
                    "{:06}-{:02}",
                    self.rng.random_range(300_000..400_000),
                    self.rng.random_range(1..100)
                ),
                CodeFormat::Salomon => {
                    format!("L{:08}", self.rng.random_range(40_000_000..50_000_000))
                }
            };
            if self.skus.insert(code.clone()) {
                return code;
            }
        }
    }

    fn gtin(&mut self, format: CodeFormat) -> String {
        // Each brand has its own company prefix; one global counter keeps every GTIN unique.
        self.gtin_counter += 1;
        let counter = self.gtin_counter;
        let body = match format {
            CodeFormat::Nike => format!("196{counter:08}"),
            CodeFormat::NewBalance => format!("197{counter:08}"),
            CodeFormat::Converse => format!("194{counter:08}"),
            CodeFormat::Adidas => format!("406{counter:09}"),
            CodeFormat::Asics => format!("455{counter:09}"),
            CodeFormat::Puma => format!("4099{counter:08}"),
            CodeFormat::Salomon => format!("3665{counter:08}"),
        };
        gtin::with_check_digit(&body).unwrap_or(body)
    }

    /// 52 weeks of orders, newest first.
    fn weekly_orders(&mut self, hype: f64, release: NaiveDate) -> [u32; WEEKS] {
        let mut orders = [0u32; WEEKS];
        // The long tail: most products barely sell; a few sell hundreds a week.
        let base = if self.rng.random_bool(0.3) {
            self.rng.random_range(0.0..0.15)
        } else {
            lognormal(&mut self.rng, 0.2, 1.5) * hype
        };
        let spike = lognormal(&mut self.rng, 2.3, 0.6);
        let half_life_weeks = self.rng.random_range(1.5..5.0);
        let trend: f64 = self.rng.random_range(-0.01..0.01);
        for (week, slot) in orders.iter_mut().enumerate() {
            let start = self.newest_week - Duration::weeks(week as i64);
            let end = start + Duration::days(6);
            if release > end {
                continue; // not out yet that week
            }
            let weeks_since_release = (start - release).num_days().max(0) as f64 / 7.0;
            let launch = 1.0 + spike * 0.5f64.powf(weeks_since_release / half_life_weeks);
            let drift = (1.0 + trend).powf(-(week as f64));
            let lambda = base * launch * season_lift(start) * drift;
            *slot = poisson(&mut self.rng, lambda);
        }
        orders
    }
}

/// Writes products and everything hanging off them with prepared statements.
struct Writer<'conn> {
    product: rusqlite::Statement<'conn>,
    variant: rusqlite::Statement<'conn>,
    release: rusqlite::Statement<'conn>,
    retail: rusqlite::Statement<'conn>,
    link: rusqlite::Statement<'conn>,
    pk: i64,
    variant_pk: i64,
}

impl<'conn> Writer<'conn> {
    fn new(tx: &'conn rusqlite::Transaction<'conn>) -> Result<Self, CatalogueError> {
        Ok(Self {
            product: tx.prepare(
                "INSERT INTO products (pk, id, slug, sku, sku_norm, title, brand, model, category,
                   color, gender, age_group, size_system, condition, availability, description,
                   image, link, release_date, retail_usd_cents, retail_eur_cents,
                   min_usd_cents, avg_usd_cents, max_usd_cents, base_usd_cents,
                   min_eur_cents, avg_eur_cents, max_eur_cents, base_eur_cents,
                   is_bundle, trending, labels, inserted_at, popularity)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 'new', ?14, ?15,
                   ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, 0, 0, ?29, ?30, ?31)",
            )?,
            variant: tx.prepare(
                "INSERT INTO variants (pk, id, product_pk, position, size, size_uk, size_eu, gtin,
                   price_usd_cents, price_eur_cents) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?,
            release: tx.prepare(
                "INSERT INTO release_dates (product_pk, release_date, source) VALUES (?1, ?2, ?3)",
            )?,
            retail: tx.prepare(
                "INSERT INTO retail_prices (product_pk, price_cents, currency, source) VALUES (?1, ?2, ?3, ?4)",
            )?,
            link: tx.prepare(
                "INSERT INTO links (product_pk, link, target, min_price_cents) VALUES (?1, ?2, 'resale_b', ?3)",
            )?,
            pk: 0,
            variant_pk: 0,
        })
    }

    fn write(&mut self, p: &GeneratedProduct) -> Result<(), CatalogueError> {
        self.pk += 1;
        let pk = self.pk;
        let prices = |f: fn(&GeneratedVariant) -> i64| {
            let values: Vec<i64> = p.variants.iter().map(f).collect();
            let min = values.iter().copied().min().unwrap_or(0);
            let max = values.iter().copied().max().unwrap_or(0);
            let avg = values.iter().sum::<i64>() / values.len().max(1) as i64;
            // The reference size sits in the middle of the run (US M 9.5/10, W 7.5, ...).
            let base = values.get(values.len() / 2).copied().unwrap_or(0);
            (min, avg, max, base)
        };
        let usd = prices(|v| v.price_usd_cents);
        let eur = prices(|v| v.price_eur_cents);
        let link = format!("https://resale-b.example/{}", p.slug);
        let popularity: u32 = p.weekly_orders[..4].iter().sum();
        let release_date = if p.release_year_only {
            String::new()
        } else {
            p.release_date.to_string()
        };
        let labels = serde_json::to_string(&p.labels).unwrap_or_else(|_| "[]".into());
        self.product.execute(params![
            pk,
            p.id,
            p.slug,
            p.sku,
            normalize_sku(&p.sku),
            p.title,
            p.silhouette.brand,
            p.silhouette.model,
            p.silhouette.category,
            p.color,
            p.run.gender(),
            p.run.age_group(),
            p.run.size_system(),
            p.availability,
            p.description,
            format!("https://images.resale-b.example/products/{}.jpg", p.slug),
            link,
            release_date,
            p.retail_usd_cents,
            p.retail_eur_cents,
            usd.0,
            usd.1,
            usd.2,
            usd.3,
            eur.0,
            eur.1,
            eur.2,
            eur.3,
            labels,
            p.inserted_at,
            popularity,
        ])?;
        for (position, v) in p.variants.iter().enumerate() {
            self.variant_pk += 1;
            self.variant.execute(params![
                self.variant_pk,
                v.id.as_bytes().as_slice(),
                pk,
                position as i64,
                v.size.us,
                v.size.uk,
                v.size.eu,
                v.gtin,
                v.price_usd_cents,
                v.price_eur_cents,
            ])?;
        }
        let (date, source) = if p.release_year_only {
            (p.release_date.year().to_string(), "resale_b_yyyy")
        } else {
            (p.release_date.to_string(), "resale_b_yyyy_mm_dd")
        };
        self.release.execute(params![pk, date, source])?;
        let source = if p.variants.len().is_multiple_of(3) {
            "extracting"
        } else {
            "srp"
        };
        self.retail
            .execute(params![pk, p.retail_usd_cents, "USD", source])?;
        self.retail
            .execute(params![pk, p.retail_eur_cents, "EUR", source])?;
        self.link.execute(params![pk, link, usd.0])?;
        Ok(())
    }
}

/// Upper case without dashes, spaces and slashes: how users type codes (`dz5485 612`).
pub fn normalize_sku(sku: &str) -> String {
    sku.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Kebab-case ASCII: `Air Jordan 1 'Chicago' (2022)` -> `air-jordan-1-chicago-2022`.
pub fn slugify(text: &str) -> String {
    let mut slug = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if c == '&' {
            slug.push_str("-and-");
        } else if !slug.ends_with('-') && !slug.is_empty() && c != '\'' {
            slug.push('-');
        }
    }
    while slug.contains("--") {
        slug = slug.replace("--", "-");
    }
    slug.trim_matches('-').to_owned()
}

fn describe(title: &str, s: &Silhouette, color: &str, sku: &str, release: NaiveDate) -> String {
    let brand = if s.brand == "Jordan" {
        "Jordan Brand"
    } else {
        s.brand
    };
    format!(
        "The {title} dresses the {model} in a {color} colorway.<br><br>\
         {brand} released it in {month} {year}. Style code: {sku}.",
        model = s.model,
        month = month_name(release.month()),
        year = release.year(),
    )
}

fn month_name(month: u32) -> &'static str {
    const NAMES: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    NAMES[(month as usize).saturating_sub(1) % 12]
}

fn retail_usd(silhouette: &Silhouette, run: SizeRun, rng: &mut ChaCha8Rng) -> i64 {
    let base = f64::from(silhouette.retail_usd);
    let factor = match run {
        SizeRun::Men => 1.0,
        SizeRun::Women => rng.random_range(0.93..1.0),
        SizeRun::GradeSchool => 0.72,
        SizeRun::Toddler => 0.45,
    };
    // Collaborations and special materials cost more at retail too.
    let special = if rng.random_bool(0.1) {
        rng.random_range(1.1..1.5)
    } else {
        1.0
    };
    ((base * factor * special) / 5.0).round() as i64 * 5
}

/// Smallest and largest sizes are scarcer and dearer; the middle of the run sits at the level.
fn size_premium(position: usize, len: usize) -> f64 {
    let from_end = len - 1 - position;
    match (position, from_end) {
        (0, _) => 1.18,
        (1, _) | (_, 2) => 1.08,
        (_, 0) => 1.35,
        (_, 1) => 1.2,
        _ => 1.0,
    }
}

fn season_lift(week_start: NaiveDate) -> f64 {
    let (month, day) = (week_start.month(), week_start.day());
    data::SEASONS
        .iter()
        .find(|(m, first, last, _)| *m == month && (*first..=*last).contains(&day))
        .map_or(1.0, |season| season.3)
}

fn lognormal(rng: &mut ChaCha8Rng, mu: f64, sigma: f64) -> f64 {
    (mu + sigma * standard_normal(rng)).exp()
}

fn standard_normal(rng: &mut ChaCha8Rng) -> f64 {
    // Box-Muller; rand_distr would add a dependency for two lines.
    let u1: f64 = rng.random_range(f64::EPSILON..1.0);
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn poisson(rng: &mut ChaCha8Rng, lambda: f64) -> u32 {
    if lambda <= 0.0 {
        return 0;
    }
    if lambda < 30.0 {
        // Knuth's method: exact, and cheap for small means.
        let limit = (-lambda).exp();
        let mut k = 0u32;
        let mut p = 1.0;
        loop {
            p *= rng.random::<f64>();
            if p <= limit {
                return k;
            }
            k += 1;
        }
    }
    (lambda + lambda.sqrt() * standard_normal(rng))
        .round()
        .max(0.0) as u32
}

fn letter(rng: &mut ChaCha8Rng) -> char {
    char::from(b'A' + rng.random_range(0..26u8))
}

fn nike_model_code(rng: &mut ChaCha8Rng) -> String {
    // Older Nike codes are six digits (`555088`); current ones two letters and four digits.
    if rng.random_bool(0.2) {
        format!("{:06}", rng.random_range(300_000..999_999))
    } else {
        format!(
            "{}{}{:04}",
            letter(rng),
            letter(rng),
            rng.random_range(1000..10_000)
        )
    }
}

/// Nike's colorway digit follows the main colour: 0 black, 1 white, 4 blue, 6 red ...
fn nike_colour_digit(color: &str) -> char {
    let main = color
        .split(['/', '-'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let rules: [(&str, char); 9] = [
        ("black", '0'),
        ("white", '1'),
        ("sail", '1'),
        ("brown", '2'),
        ("mocha", '2'),
        ("green", '3'),
        ("blue", '4'),
        ("red", '6'),
        ("grey", '0'),
    ];
    rules
        .iter()
        .find(|(word, _)| main.contains(word))
        .map_or('1', |(_, digit)| *digit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Weekday;

    #[test]
    fn slugs_are_kebab_case_ascii() {
        assert_eq!(
            slugify("Air Jordan 1 Retro High OG 'Chicago' (2022)"),
            "air-jordan-1-retro-high-og-chicago-2022"
        );
        assert_eq!(
            slugify("SB Dunk Low 'Ben & Jerry's'"),
            "sb-dunk-low-ben-and-jerrys"
        );
    }

    #[test]
    fn sku_normalization_ignores_dash_space_case() {
        assert_eq!(normalize_sku("dz5485 612"), "DZ5485612");
        assert_eq!(normalize_sku("DZ5485-612"), "DZ5485612");
    }

    #[test]
    fn newest_week_is_a_full_week_before_as_of() {
        let as_of = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(); // a Sunday
        let newest = newest_week_start(as_of);
        assert_eq!(newest.weekday(), Weekday::Mon);
        assert_eq!(newest.to_string(), "2026-11-09");
    }

    #[test]
    fn poisson_mean_is_close_to_lambda() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for lambda in [0.5, 4.0, 80.0] {
            let n = 20_000;
            let sum: u64 = (0..n).map(|_| u64::from(poisson(&mut rng, lambda))).sum();
            let mean = sum as f64 / f64::from(n);
            assert!(
                (mean - lambda).abs() < lambda * 0.05 + 0.05,
                "{lambda}: {mean}"
            );
        }
    }
}
