//! Portfolio benchmark: the frame CPU time of the portfolio panel with 10,000 pairs, and the
//! time of importing a 10,000-line CSV, each beside a baseline measured in the same run.
//!
//! ```text
//! CARGO_PROFILE_BENCH_LTO=false CARGO_PROFILE_BENCH_CODEGEN_UNITS=16 cargo bench --bench portfolio
//! SOLESCOPE_BENCH_FRAMES=2000 SOLESCOPE_BENCH_PAIRS=20000 cargo bench --bench portfolio
//! ```
//!
//! Setup (not timed): a 300-product catalogue in a temporary directory, the real service on
//! 127.0.0.1:0, 60 of its products read through the real client; a user database holding
//! `SOLESCOPE_BENCH_PAIRS` pairs (default 10,000; one in five sold) of those products in their
//! catalogue sizes. The real [`solescope::app::App`] opens that database and the portfolio
//! view, as `main` wires it minus the window.
//!
//! Frames: driven through a plain `egui::Context` at 1280x800 points; each frame's
//! `Context::run_ui` plus `Context::tessellate` is timed (the CPU the app costs before the
//! painter), while the pointer sweeps the table and, in the second scenario, the wheel scrolls
//! it. The view is warmed up until every market value has landed (every held style code priced
//! in batches of 50 through `GET /api/v2/prices`, as the window does). The baseline is an empty
//! panel with one label on a context driven the same way. Targets: median under 4 ms, p99 under
//! 16 ms.
//!
//! Import: a 10,000-line CSV file (sizes, style codes and money in the spreadsheet spellings the
//! reader accepts) read, parsed and written into a fresh user database in one transaction, as
//! the panel's import does, 5 times; the baseline is reading the same file with the `csv` crate
//! alone, counting records. Target: every run under 1 s.
//!
//! Prints median, p99 and max, PASS/FAIL per target; any FAIL exits with status 1.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

#[allow(dead_code, reason = "each benchmark uses a part of the shared helpers")]
mod common;
use chrono::NaiveDate;
use common::{demo_app, env_number, generate_catalogue, ms, percentile};
use egui::{Pos2, Rect, Vec2};
use solescope::app::{AppState, View};
use solescope::client::{Client, ClientConfig, SearchQuery};
use solescope::figures::parse_portfolio_csv;
use solescope::model::Product;
use solescope::model::portfolio::{Condition, Pair, Sale};
use solescope::service::{self, ServiceConfig, ServiceState};
use solescope::userdb::{UserDb, portfolio};

const SCREEN_PT: Vec2 = Vec2::new(1280.0, 800.0);
const FRAME_DT_SECS: f64 = 1.0 / 60.0;
const TARGET_MEDIAN_MS: f64 = 4.0;
const TARGET_P99_MS: f64 = 16.0;
const TARGET_IMPORT_SECS: f64 = 1.0;
const IMPORT_LINES: usize = 10_000;
const IMPORT_RUNS: usize = 5;

/// The pairs: product `i % products`, a size of its run, one in five sold.
fn pairs(products: &[Product], count: usize) -> Vec<(Pair, Option<Sale>)> {
    let bought = NaiveDate::from_ymd_opt(2025, 1, 1).expect("date");
    (0..count)
        .map(|i| {
            let product = &products[i % products.len()];
            let variant = &product.variants[(i / products.len()) % product.variants.len()];
            let purchased_on = bought + chrono::Days::new((i % 300) as u64);
            let pair = Pair {
                product_id: product.id.clone(),
                slug: product.slug.clone(),
                sku: product.sku.clone(),
                title: product.title.clone(),
                size: variant.size.clone(),
                condition: Condition::ALL[i % 3],
                purchased_on,
                cost_cents: 9_000 + (i as i64 * 37) % 20_000,
                currency: product.currency.clone(),
                bought_from: ["Nike", "Foot Locker", "resale-b"][i % 3].to_owned(),
                notes: String::new(),
                tags: vec![format!("batch-{}", i % 12)],
            };
            let sale = (i % 5 == 0).then(|| Sale {
                sold_on: purchased_on + chrono::Days::new(20 + (i % 90) as u64),
                price_cents: 12_000 + (i as i64 * 53) % 25_000,
                marketplace: "resale-b".to_owned(),
                fees_cents: 1_500,
                shipping_cents: 1_200,
            });
            (pair, sale)
        })
        .collect()
}

/// A spreadsheet of `lines` lines in the spellings resellers use.
fn spreadsheet(products: &[Product], lines: usize) -> String {
    let mut text =
        String::from("Style Code,Size,Name,Condition,Date Bought,Price Paid,Store,Tags\n");
    for (i, (pair, _)) in pairs(products, lines).iter().enumerate() {
        let sku = if i % 2 == 0 {
            pair.sku.replace('-', "")
        } else {
            pair.sku.clone()
        };
        let size = if i % 3 == 0 {
            format!("US {}", pair.size)
        } else {
            pair.size.clone()
        };
        let cents = pair.cost_cents + 100_000;
        let _ = writeln!(
            text,
            "{sku},{size},\"{}\",{},{},\"${},{:03}.{:02}\",{},vault",
            pair.title.replace('"', "'"),
            pair.condition.label(),
            pair.purchased_on.format("%m/%d/%Y"),
            cents / 100_000,
            (cents / 100) % 1000,
            cents % 100,
            pair.bought_from,
        );
    }
    text
}

struct Driver {
    ctx: egui::Context,
    frame: u64,
    time_secs: f64,
    scroll: bool,
}

impl Driver {
    fn new(scroll: bool) -> Self {
        Self {
            ctx: egui::Context::default(),
            frame: 0,
            time_secs: 0.0,
            scroll,
        }
    }

    fn frame(&mut self, ui_fn: &mut dyn FnMut(&mut egui::Ui)) -> Duration {
        let t = self.frame as f32;
        let mut input = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, SCREEN_PT)),
            time: Some(self.time_secs),
            predicted_dt: FRAME_DT_SECS as f32,
            ..Default::default()
        };
        input.events.push(egui::Event::PointerMoved(Pos2::new(
            800.0 + 400.0 * (t * 0.021).sin(),
            450.0 + 300.0 * (t * 0.013).sin(),
        )));
        if self.scroll {
            // Down for 300 frames, then back up: a reader paging through the table.
            let direction = if (self.frame / 300).is_multiple_of(2) {
                -1.0
            } else {
                1.0
            };
            input.events.push(egui::Event::MouseWheel {
                unit: egui::MouseWheelUnit::Point,
                delta: Vec2::new(0.0, 40.0 * direction),
                modifiers: egui::Modifiers::NONE,
                phase: egui::TouchPhase::Move,
                source: egui::MouseWheelSource::Wheel,
            });
        }
        self.frame += 1;
        let started = Instant::now();
        let mut output = self.ctx.run_ui(input, |ui| ui_fn(ui));
        let primitives = self
            .ctx
            .tessellate(std::mem::take(&mut output.shapes), output.pixels_per_point);
        let elapsed = started.elapsed();
        output.textures_delta.clear();
        std::hint::black_box(primitives);
        elapsed
    }

    fn measure(&mut self, frames: usize, ui_fn: &mut dyn FnMut(&mut egui::Ui)) -> Vec<Duration> {
        (0..frames)
            .map(|_| {
                self.time_secs += FRAME_DT_SECS;
                self.frame(ui_fn)
            })
            .collect()
    }
}

/// Percentiles of a set of timings, in milliseconds.
#[allow(clippy::struct_field_names, reason = "every field is a duration in ms")]
struct Stats {
    median_ms: f64,
    p99_ms: f64,
    max_ms: f64,
}

fn stats(mut times: Vec<Duration>) -> Stats {
    times.sort();
    Stats {
        median_ms: ms(percentile(&times, 0.5)),
        p99_ms: ms(percentile(&times, 0.99)),
        max_ms: ms(times[times.len() - 1]),
    }
}

fn frames_of_portfolio(
    runtime: &tokio::runtime::Runtime,
    base_url: &str,
    db: &Path,
    pairs: usize,
    frames: usize,
    scroll: bool,
) -> Stats {
    let state = AppState {
        view: View::Portfolio,
        ..AppState::default()
    };
    let mut app = demo_app(runtime, base_url, state, Some(db.to_path_buf()));
    let mut driver = Driver::new(scroll);
    let app = std::cell::RefCell::new(&mut app);
    let mut ui_fn = |ui: &mut egui::Ui| app.borrow_mut().ui(ui);
    let started = Instant::now();
    let mut settled = 0;
    while settled < 30 {
        driver.time_secs = started.elapsed().as_secs_f64();
        driver.frame(&mut ui_fn);
        let app = app.borrow();
        let valued = app
            .portfolio_rows()
            .iter()
            .filter(|r| r.holding.sale.is_some() || r.market.is_some())
            .count();
        if app.is_idle() && app.portfolio_rows().len() == pairs && valued == pairs {
            settled += 1;
        } else {
            settled = 0;
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "the portfolio did not settle: {} rows, {valued} valued",
                app.portfolio_rows().len()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    println!(
        "  warmed up in {:.1} s ({} frames)",
        started.elapsed().as_secs_f64(),
        driver.frame
    );
    stats(driver.measure(frames, &mut ui_fn))
}

fn baseline(frames: usize) -> Stats {
    let mut driver = Driver::new(false);
    let mut ui_fn = |ui: &mut egui::Ui| {
        egui::CentralPanel::default().show(ui, |ui| {
            ui.label("Solescope");
        });
    };
    for _ in 0..30 {
        driver.frame(&mut ui_fn);
    }
    stats(driver.measure(frames, &mut ui_fn))
}

fn main() {
    common::print_build();
    let frames: usize = env_number("SOLESCOPE_BENCH_FRAMES").unwrap_or(600);
    let pair_count: usize = env_number("SOLESCOPE_BENCH_PAIRS").unwrap_or(10_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let catalogue = dir.path().join("catalogue.sqlite");
    generate_catalogue(&catalogue, 300, 11);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let state = ServiceState::open(&ServiceConfig::new(&catalogue)).expect("service state");
    let server = runtime
        .block_on(service::spawn("127.0.0.1:0", state))
        .expect("service");
    let base_url = server.base_url();
    let client =
        Client::new(ClientConfig::new(&base_url, Some("demo-pro".into()))).expect("client");
    let products: Vec<Product> = runtime.block_on(async {
        let mut products = Vec::new();
        for page in 1..=3 {
            let query = SearchQuery {
                page: Some(page),
                ..SearchQuery::default()
            };
            for hit in client.search(&query).await.expect("search").hits {
                let product = client.product_v2(&hit.id).await.expect("product").data;
                if !product.variants.is_empty() {
                    products.push(product);
                }
            }
        }
        products
    });
    assert!(products.len() >= 40, "only {} products", products.len());

    let db_path = dir.path().join(UserDb::FILE_NAME);
    {
        let mut db = UserDb::open(&db_path).expect("user db");
        portfolio::add_holdings(&mut db, &pairs(&products, pair_count)).expect("pairs written");
    }

    println!(
        "portfolio benchmark: {pair_count} pairs of {} products, {frames} frames per scenario",
        products.len()
    );
    let mut failed = false;
    let floor = baseline(frames);
    println!(
        "{:<44} median {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms",
        "baseline: empty panel, one label", floor.median_ms, floor.p99_ms, floor.max_ms
    );
    for (name, scroll) in [
        ("portfolio, holdings, pointer sweeping", false),
        ("portfolio, holdings, wheel scrolling", true),
    ] {
        let row = frames_of_portfolio(&runtime, &base_url, &db_path, pair_count, frames, scroll);
        let pass = row.median_ms < TARGET_MEDIAN_MS && row.p99_ms < TARGET_P99_MS;
        failed |= !pass;
        println!(
            "{name:<44} median {:>7.3} ms  p99 {:>7.3} ms  max {:>7.3} ms  ({:.1}x baseline)  {}",
            row.median_ms,
            row.p99_ms,
            row.max_ms,
            row.median_ms / floor.median_ms.max(1e-9),
            if pass { "PASS" } else { "FAIL" }
        );
    }

    let csv_path = dir.path().join("import.csv");
    std::fs::write(&csv_path, spreadsheet(&products, IMPORT_LINES)).expect("csv written");
    let mut baseline_runs = Vec::new();
    let mut import_runs = Vec::new();
    for run in 0..IMPORT_RUNS {
        let started = Instant::now();
        let mut reader = csv::Reader::from_path(&csv_path).expect("csv");
        let records = reader.records().flatten().count();
        assert_eq!(records, IMPORT_LINES);
        baseline_runs.push(started.elapsed());

        let target = dir.path().join(format!("import-{run}.sqlite"));
        let mut db = UserDb::open(&target).expect("user db");
        let started = Instant::now();
        let text = std::fs::read_to_string(&csv_path).expect("csv read");
        let preview = parse_portfolio_csv(&text, "USD").expect("csv parsed");
        let ids = portfolio::add_holdings(&mut db, &preview.rows).expect("import written");
        import_runs.push(started.elapsed());
        assert_eq!(ids.len(), IMPORT_LINES);
    }
    let floor = stats(baseline_runs);
    let import = stats(import_runs);
    println!(
        "{:<44} median {:>7.1} ms  max {:>7.1} ms",
        "baseline: csv crate reading the file", floor.median_ms, floor.max_ms
    );
    let pass = import.max_ms < TARGET_IMPORT_SECS * 1000.0;
    failed |= !pass;
    println!(
        "{:<44} median {:>7.1} ms  max {:>7.1} ms  ({:.1}x baseline)  {}",
        format!("import of {IMPORT_LINES} lines (read, parse, write)"),
        import.median_ms,
        import.max_ms,
        import.median_ms / floor.median_ms.max(1e-9),
        if pass { "PASS" } else { "FAIL" }
    );
    drop(server);
    if failed {
        std::process::exit(1);
    }
}
