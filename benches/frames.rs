//! Frame-time benchmark: the CPU time the window costs per frame, per view, on the demo
//! catalogue, beside an empty egui frame measured in the same run.
//!
//! ```text
//! cargo bench --bench frames                           # 20,000 products, 600 frames per view
//! SOLESCOPE_BENCH_FRAMES=2000 cargo bench --bench frames
//! SOLESCOPE_BENCH_PRODUCTS=100000 cargo bench --bench frames
//! ```
//!
//! Builds a catalogue like the demo one (`DEMO_PRODUCTS` products, `DEMO_SEED`) in a temporary
//! directory, in a child process so the memory reported is the app's and not the generator's.
//! Starts the real service on 127.0.0.1:0 on a tokio runtime and builds the real
//! [`solescope::app::App`] on it (pro demo key in an in-memory key store, product pictures
//! through the app's own loaders), exactly as `main` wires it, minus the window.
//!
//! Frames are driven through a plain `egui::Context` at 1280x800 points, 1 pixel per point (no
//! test harness, no GPU): what is timed per frame is `Context::run_ui` (our UI code and egui's
//! layout) plus `Context::tessellate` (shapes to triangles), i.e. the CPU time the app costs
//! each frame before the painter uploads anything. Uploading textures and drawing on the GPU are
//! not included. Every frame moves the pointer a few points (so hover highlights and the
//! charts' hover labels are computed) and advances `time` by 1/60 s.
//!
//! Each view is warmed up first: frames run (with short sleeps, so fetches land) until every
//! fetch has landed, no picture is still loading and 30 more frames have passed. Then
//! `SOLESCOPE_BENCH_FRAMES` frames (default 600) are timed one by one. The baseline is an empty
//! `CentralPanel` with one label on a context set up the same way: the floor egui itself costs.
//! Prints median, p99 and max per view, the ratio of each median to the baseline's, and the
//! process's resident memory (`VmRSS`, peak `VmHWM`; the in-process service included, as in
//! the real app), then PASS/FAIL against the targets; any FAIL makes the process exit with status 1.
//!
//! The memory here has no window in it: winit, the OpenGL driver and its buffers come on top
//! (`bash .ci/window-check.sh` prints the resident memory of the real window under Xvfb).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

#[allow(dead_code, reason = "each benchmark uses a part of the shared helpers")]
mod common;
use common::{demo_app, env_number, generate_catalogue, ms, percentile, proc_status_mb};
use egui::{Pos2, Rect, Vec2};
use solescope::app::{self, AppState, ComparedProduct, View};
use solescope::catalogue::demo::{DEMO_PRODUCTS, DEMO_SEED};
use solescope::client::{Client, ClientConfig, SearchQuery};
use solescope::model::SearchHit;
use solescope::service::{self, ServiceConfig, ServiceState};

/// Set (to the output path) in the child process that generates the catalogue.
const GENERATE_INTO_ENV: &str = "SOLESCOPE_FRAMES_GENERATE_INTO";
/// The window size the app opens with.
const SCREEN_PT: Vec2 = Vec2::new(1280.0, 800.0);
/// The search typed in every view: common enough for a full first page (20 hits).
const QUERY: &str = "jordan";
/// Frames run after a view has settled, before timing starts.
const SETTLE_FRAMES: u32 = 30;
/// Longest a view may take to settle.
const WARM_UP_TIMEOUT: Duration = Duration::from_secs(60);
/// A virtual 60 Hz display.
const FRAME_DT_SECS: f64 = 1.0 / 60.0;

const TARGET_MEDIAN_MS: f64 = 4.0;
const TARGET_P99_MS: f64 = 16.0;
const TARGET_RSS_MB: f64 = 300.0;

fn products() -> u32 {
    env_number("SOLESCOPE_BENCH_PRODUCTS").unwrap_or(DEMO_PRODUCTS)
}

/// Where the pointer is on frame `frame`: a slow Lissajous sweep over `area`, a few points per
/// frame, so it crosses rows, buttons and chart points.
fn pointer_at(area: Rect, frame: u64) -> Pos2 {
    let t = frame as f32;
    Pos2::new(
        area.center().x + 0.5 * area.width() * (t * 0.021).sin(),
        area.center().y + 0.5 * area.height() * (t * 0.013).sin(),
    )
}

/// One egui context driven frame by frame, as the native integration does, minus the GPU.
struct Driver {
    ctx: egui::Context,
    frame: u64,
    time_secs: f64,
    hover_area: Rect,
    /// Primitives and vertices of the last frame.
    primitives: usize,
    vertices: usize,
}

impl Driver {
    fn new(hover_area: Rect) -> Self {
        Self {
            ctx: egui::Context::default(),
            frame: 0,
            time_secs: 0.0,
            hover_area,
            primitives: 0,
            vertices: 0,
        }
    }

    /// Runs one frame of `ui_fn` at the current time and returns its CPU time.
    fn frame(&mut self, ui_fn: &mut dyn FnMut(&mut egui::Ui)) -> Duration {
        let mut input = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, SCREEN_PT)),
            time: Some(self.time_secs),
            predicted_dt: FRAME_DT_SECS as f32,
            ..Default::default()
        };
        input.events.push(egui::Event::PointerMoved(pointer_at(
            self.hover_area,
            self.frame,
        )));
        self.frame += 1;

        let started = Instant::now();
        let mut output = self.ctx.run_ui(input, |ui| ui_fn(ui));
        let primitives = self
            .ctx
            .tessellate(std::mem::take(&mut output.shapes), output.pixels_per_point);
        let elapsed = started.elapsed();

        // No painter here: the texture updates are dropped (egui asserts they were handled).
        output.textures_delta.clear();
        self.primitives = primitives.len();
        self.vertices = primitives
            .iter()
            .map(|clipped| match &clipped.primitive {
                egui::epaint::Primitive::Mesh(mesh) => mesh.vertices.len(),
                egui::epaint::Primitive::Callback(_) => 0,
            })
            .sum();
        std::hint::black_box(primitives);
        elapsed
    }

    /// Runs frames on the wall clock until `ready` holds, nothing is loading and
    /// [`SETTLE_FRAMES`] more frames have passed. Panics after [`WARM_UP_TIMEOUT`].
    fn warm_up(
        &mut self,
        what: &str,
        ui_fn: &mut dyn FnMut(&mut egui::Ui),
        ready: &mut dyn FnMut() -> bool,
    ) -> WarmUp {
        let started = Instant::now();
        let first_frame = self.frame;
        let clock_start = self.time_secs;
        let mut settled_frames = 0;
        while settled_frames < SETTLE_FRAMES {
            self.time_secs = clock_start + started.elapsed().as_secs_f64();
            self.frame(ui_fn);
            if ready() && !self.ctx.has_pending_images() {
                settled_frames += 1;
            } else {
                settled_frames = 0;
                assert!(
                    started.elapsed() < WARM_UP_TIMEOUT,
                    "{what}: not settled after {WARM_UP_TIMEOUT:?}"
                );
                // Fetches land on the runtime's threads; leave them the CPU.
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        WarmUp {
            elapsed: started.elapsed(),
            frames: self.frame - first_frame,
        }
    }

    /// Times `frames` frames, 1/60 s of virtual time apart.
    fn measure(&mut self, frames: usize, ui_fn: &mut dyn FnMut(&mut egui::Ui)) -> Vec<Duration> {
        let mut times = Vec::with_capacity(frames);
        for _ in 0..frames {
            self.time_secs += FRAME_DT_SECS;
            times.push(self.frame(ui_fn));
        }
        times
    }

    fn textures(&self) -> usize {
        self.ctx.tex_manager().read().num_allocated()
    }
}

/// How long a view took to settle.
struct WarmUp {
    elapsed: Duration,
    frames: u64,
}

/// What a view needs loaded before it is timed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Needs {
    Search,
    Product,
    Orders,
}

struct Scenario {
    name: &'static str,
    state: AppState,
    needs: Needs,
    hover_area: Rect,
}

struct Row {
    name: &'static str,
    median_ms: f64,
    p99_ms: f64,
    max_ms: f64,
    primitives: usize,
    vertices: usize,
    textures: usize,
    rss_mb: f64,
    warm_up: WarmUp,
}

impl Row {
    fn new(name: &'static str, mut times: Vec<Duration>, driver: &Driver, warm_up: WarmUp) -> Self {
        times.sort();
        Self {
            name,
            median_ms: ms(percentile(&times, 0.5)),
            p99_ms: ms(percentile(&times, 0.99)),
            max_ms: ms(times[times.len() - 1]),
            primitives: driver.primitives,
            vertices: driver.vertices,
            textures: driver.textures(),
            rss_mb: proc_status_mb("VmRSS"),
            warm_up,
        }
    }
}

/// The floor: an empty central panel with one label.
fn baseline(frames: usize) -> Row {
    let mut driver = Driver::new(Rect::from_min_max(
        Pos2::new(40.0, 40.0),
        Pos2::new(1240.0, 760.0),
    ));
    let mut ui_fn = |ui: &mut egui::Ui| {
        egui::CentralPanel::default().show(ui, |ui| {
            ui.label("Solescope");
        });
    };
    let warm_up = driver.warm_up("baseline", &mut ui_fn, &mut || true);
    let times = driver.measure(frames, &mut ui_fn);
    Row::new("baseline: empty panel, one label", times, &driver, warm_up)
}

/// The real app on the service at `base_url`, set up as `scenario` says, warmed up and timed.
fn app_scenario(
    scenario: Scenario,
    runtime: &tokio::runtime::Runtime,
    base_url: &str,
    frames: usize,
) -> Row {
    let mut app = demo_app(runtime, base_url, scenario.state, None);
    let mut driver = Driver::new(scenario.hover_area);
    app::images::install(&driver.ctx, runtime.handle().clone());

    let app = std::cell::RefCell::new(&mut app);
    let mut ui_fn = |ui: &mut egui::Ui| app.borrow_mut().ui(ui);
    let mut ready = || {
        let app = app.borrow();
        let searched = app
            .search_results()
            .is_some_and(|results| results.hits.len() >= 20);
        let loaded = match scenario.needs {
            Needs::Search => true,
            Needs::Product => app.product().is_some(),
            Needs::Orders => app.orders_series().is_some(),
        };
        app.is_idle() && searched && loaded
    };
    let warm_up = driver.warm_up(scenario.name, &mut ui_fn, &mut ready);
    let times = driver.measure(frames, &mut ui_fn);
    Row::new(scenario.name, times, &driver, warm_up)
}

/// The views timed, opened on the hits of [`QUERY`].
fn scenarios(hits: &[SearchHit]) -> Vec<Scenario> {
    let searched = AppState {
        last_query: QUERY.to_owned(),
        ..AppState::default()
    };
    let open = |view: View| AppState {
        view,
        selected_product: Some(hits[0].id.clone()),
        ..searched.clone()
    };
    let compared = AppState {
        compare: hits[1..3]
            .iter()
            .map(|hit| ComparedProduct {
                id: hit.id.clone(),
                title: hit.title.clone(),
            })
            .collect(),
        ..open(View::Orders)
    };
    // The search panel is about 380 points wide on the left; the view fills the rest.
    let list = Rect::from_min_max(Pos2::new(10.0, 90.0), Pos2::new(370.0, 780.0));
    let view = Rect::from_min_max(Pos2::new(400.0, 60.0), Pos2::new(1260.0, 780.0));
    vec![
        Scenario {
            name: "search: 20 hits with thumbnails",
            state: searched.clone(),
            needs: Needs::Search,
            hover_area: list,
        },
        Scenario {
            name: "product: detail, market, variants",
            state: open(View::Product),
            needs: Needs::Product,
            hover_area: view,
        },
        Scenario {
            name: "orders: 4 charts, 52 weeks",
            state: open(View::Orders),
            needs: Needs::Orders,
            hover_area: view,
        },
        Scenario {
            name: "orders: 3 products compared",
            state: compared,
            needs: Needs::Orders,
            hover_area: view,
        },
        Scenario {
            name: "real-time: lookup form",
            state: open(View::Realtime),
            needs: Needs::Product,
            hover_area: view,
        },
    ]
}

fn main() {
    common::print_build();
    if let Some(path) = std::env::var_os(GENERATE_INTO_ENV) {
        generate_catalogue(Path::new(&path), products(), DEMO_SEED);
        return;
    }
    let frames: usize = env_number("SOLESCOPE_BENCH_FRAMES").unwrap_or(600).max(1);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("frames.sqlite");

    let started = Instant::now();
    let generated = Command::new(std::env::current_exe().expect("own path"))
        .env(GENERATE_INTO_ENV, &path)
        .status()
        .expect("generator process");
    assert!(generated.success(), "generating the catalogue failed");
    println!(
        "catalogue: {} products, seed {DEMO_SEED}, generated in a child process in {:.1} s",
        products(),
        started.elapsed().as_secs_f64()
    );

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let started = Instant::now();
    let state = ServiceState::open(&ServiceConfig::new(&path)).expect("service state");
    let server = runtime
        .block_on(service::spawn("127.0.0.1:0", state))
        .expect("service");
    let base_url = server.base_url();
    println!(
        "service: {base_url}, started in {:.1} s; VmRSS {:.0} MB before any UI",
        started.elapsed().as_secs_f64(),
        proc_status_mb("VmRSS")
    );

    let client =
        Client::new(ClientConfig::new(&base_url, Some("demo-pro".into()))).expect("client");
    let query = SearchQuery {
        text: QUERY.to_owned(),
        ..SearchQuery::default()
    };
    let hits = runtime
        .block_on(client.search(&query))
        .expect("search")
        .hits;
    assert!(hits.len() >= 20, "{QUERY:?} gave only {} hits", hits.len());
    println!(
        "views open {:?} (and compare {:?}, {:?}); {frames} timed frames each at {}x{} pt",
        hits[0].title, hits[1].title, hits[2].title, SCREEN_PT.x, SCREEN_PT.y
    );
    println!();

    let mut rows = vec![baseline(frames)];
    for scenario in scenarios(&hits) {
        rows.push(app_scenario(scenario, &runtime, &base_url, frames));
    }

    let baseline_median = rows[0].median_ms;
    println!(
        "CPU time per frame (Context::run_ui + Context::tessellate), {frames} frames per view"
    );
    println!(
        "{:<36} {:>9} {:>8} {:>8} {:>7} {:>6} {:>8} {:>4} {:>7}  warm-up",
        "view", "median ms", "p99 ms", "max ms", "ratio", "prims", "vertices", "tex", "RSS MB",
    );
    for row in &rows {
        println!(
            "{:<36} {:>9.3} {:>8.3} {:>8.3} {:>6.1}x {:>6} {:>8} {:>4} {:>7.0}  {:.0} ms, {} frames",
            row.name,
            row.median_ms,
            row.p99_ms,
            row.max_ms,
            row.median_ms / baseline_median,
            row.primitives,
            row.vertices,
            row.textures,
            row.rss_mb,
            ms(row.warm_up.elapsed),
            row.warm_up.frames,
        );
    }
    println!(
        "ratio: median over the baseline's; prims, vertices: of the last frame; tex: textures \
         allocated (font atlas + pictures); RSS: VmRSS after the view's frames"
    );
    let rss_mb = proc_status_mb("VmRSS");
    let peak_mb = proc_status_mb("VmHWM");
    println!();
    println!(
        "resident memory after all views: VmRSS {rss_mb:.0} MB, peak VmHWM {peak_mb:.0} MB (service and UI in one process)"
    );

    let views = &rows[1..];
    let worst_median = views.iter().map(|r| r.median_ms).fold(0.0, f64::max);
    let worst_p99 = views.iter().map(|r| r.p99_ms).fold(0.0, f64::max);
    let checks = [
        (
            worst_median < TARGET_MEDIAN_MS,
            format!("median < {TARGET_MEDIAN_MS} ms in every view (worst {worst_median:.3} ms)"),
        ),
        (
            worst_p99 < TARGET_P99_MS,
            format!("p99 < {TARGET_P99_MS} ms in every view (worst {worst_p99:.3} ms)"),
        ),
        (
            peak_mb < TARGET_RSS_MB,
            format!("resident memory < {TARGET_RSS_MB} MB (peak {peak_mb:.0} MB)"),
        ),
    ];
    for (pass, claim) in &checks {
        println!("{} {claim}", if *pass { "PASS" } else { "FAIL" });
    }
    drop(server);
    if checks.iter().any(|(pass, _)| !pass) {
        std::process::exit(1);
    }
}
