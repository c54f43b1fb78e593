//! The live search index at scale: products written while it serves.
//!
//! ```text
//! cargo bench --bench search_live -- target/bench-data/1m.sqlite
//! cargo bench --bench search_live -- CATALOGUE --visible 10000 --seconds 10 --writes 100000
//! ```
//!
//! Over a catalogue file (its `.search-index` is read back or built first; the live index's
//! folder beside it is emptied), four legs, each with its baseline measured in the same run:
//!
//! 1. Time to search: `--visible` single-product writes (new products, each with a word of
//!    its own), each timed from the write's start until a search for that word with one typo
//!    finds it. Baseline: the same typo search for a product written before (no write).
//!    FAIL when p99 > 100 ms or a product is not found.
//! 2. Search while writing: 8 clients of distinct queries for `--seconds`, each waiting for its
//!    answer before it asks again (a closed loop, as `wrk`'s 8 connections), served by one
//!    search worker per core (as the service ranks a search inline on its async workers, one a
//!    core); alternately without and with a writer of 200 new products a second (made before
//!    the leg) in batches of 20, as the KicksDB mirror writes the products of one answer (a
//!    search page), twice each. A search's time runs from the client's request to its answer, its
//!    wait for a worker included. In process: no HTTP (`benches/http_load.sh` measures that).
//!    FAIL when p99 with writes > 5 ms or throughput with writes < 0.9x without.
//! 3. `--writes` writes (new products, text and code changes, deletes, price changes) in
//!    batches of 100 as fast as they go, merges in the background as configured by default;
//!    then this process's resident memory (FAIL over 550 MB), and a second start: a new process
//!    opens the live index the writes left (its base and log read back; FAIL over 1 s).
//! 4. The same writes applied to a copy of the catalogue and the index rebuilt from it: the
//!    pages of 2,000 distinct queries (first and second page) checksummed over both; FAIL
//!    when they differ, or when fewer than 95 % of the first pages have hits (every query is
//!    made from a product's title or code: two empty pages would compare equal).
//!
//! Every query and every written product is distinct (no input repeats).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::Connection;
use solescope::search::live::{LiveConfig, LiveIndex, LiveProduct, write_to_catalogue};
use solescope::search::{SearchIndex, SearchRequest, words};

/// The service's allocator (`src/main.rs`), so that the memory figures are the service's.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[allow(dead_code, reason = "each benchmark uses a part of the shared helpers")]
mod common;
use common::{ms, percentile, proc_status_mb};

/// Clients asking at once (the 8 connections of `benches/http_load.sh`).
const CLIENTS: usize = 8;
const WRITES_PER_SECOND: u64 = 200;
/// How long after the last merge leg 3 reads the resident memory.
const SETTLE: Duration = Duration::from_secs(3);
/// Products a write of leg 2 carries: as the KicksDB mirror writes them, one batch per answer
/// (a search page of 20 products).
const WRITE_BATCH: usize = 20;
const PAGE: usize = 20;
/// A written product counts as found when its typo query lists it among this many.
const FOUND_WITHIN: usize = 100;

struct Options {
    /// Stop after leg 2 (profiling the searches).
    searches_only: bool,
    /// Only open the live index kept beside the catalogue and print the time and the RSS (the
    /// second start, run in a process of its own).
    open_only: bool,
    /// Skip leg 4 (profiling the writes' memory).
    no_rebuild: bool,
    catalogue: PathBuf,
    visible: usize,
    seconds: f64,
    writes: usize,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut options = Options {
        searches_only: false,
        open_only: false,
        no_rebuild: false,
        catalogue: PathBuf::from("target/bench-data/1m.sqlite"),
        visible: 10_000,
        seconds: 10.0,
        writes: 100_000,
    };
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1);
        match (args[i].as_str(), value) {
            ("--visible", Some(v)) => options.visible = v.parse().expect("--visible"),
            ("--seconds", Some(v)) => options.seconds = v.parse().expect("--seconds"),
            ("--writes", Some(v)) => options.writes = v.parse().expect("--writes"),
            ("--searches-only", _) => {
                options.searches_only = true;
                i += 1;
                continue;
            }
            ("--no-rebuild", _) => {
                options.no_rebuild = true;
                i += 1;
                continue;
            }
            ("--open-only", _) => {
                options.open_only = true;
                i += 1;
                continue;
            }
            (path, _) if !path.starts_with("--") => {
                options.catalogue = PathBuf::from(path);
                i += 1;
                continue;
            }
            _ => {}
        }
        i += 2;
    }
    options
}

/// A word no product has, for write `n`: letters only, eight long (one typo allowed), at
/// least two letters from any other such word (a check letter on the number's letters).
fn own_word(n: usize) -> String {
    let mut letters = Vec::new();
    let mut rest = n;
    for _ in 0..5 {
        letters.push(b'a' + (rest % 26) as u8);
        rest /= 26;
    }
    let check = letters
        .iter()
        .map(|&b| u32::from(b - b'a') * 7)
        .sum::<u32>()
        % 26;
    let mut word = b"zq".to_vec();
    word.extend_from_slice(&letters);
    word.push(b'a' + check as u8);
    String::from_utf8(word).expect("ascii")
}

/// `word` with two letters in its middle swapped (one typo).
fn typo_of(word: &str) -> String {
    let mut bytes = word.as_bytes().to_vec();
    bytes.swap(4, 5);
    if bytes == word.as_bytes() {
        bytes.swap(3, 4);
    }
    String::from_utf8(bytes).expect("ascii")
}

/// Writes of new products: the catalogue's products under new keys, codes and words.
struct Writes {
    conn: Connection,
    max_pk: i64,
    products: i64,
    next: usize,
}

impl Writes {
    fn new(catalogue: &Path) -> Self {
        let conn = Connection::open(catalogue).expect("catalogue");
        let (max_pk, products): (i64, i64) = conn
            .query_row("SELECT max(pk), count(*) FROM products", [], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .expect("count");
        Self {
            conn,
            max_pk,
            products,
            next: 0,
        }
    }

    /// New product number `n`: a catalogue product's text and hit, a key, codes and a word
    /// of its own.
    fn new_product(&self, n: usize) -> LiveProduct {
        let from = (n as i64 * 7_919) % self.products + 1;
        let mut product = LiveProduct::read(&self.conn, from)
            .expect("read")
            .unwrap_or_else(|| {
                LiveProduct::read(&self.conn, 1)
                    .expect("read")
                    .expect("pk 1")
            });
        product.pk = self.max_pk + 1 + n as i64;
        product.id = uuid::Uuid::from_u128(0x62_0000_0000 + n as u128).to_string();
        product.slug = format!("live-{n}-{}", product.slug);
        product.sku = format!("LV{n:07}-62");
        product.sku_norm = solescope::catalogue::generate::normalize_sku(&product.sku);
        product.title = format!("{} {}", product.title, own_word(n));
        for (size, variant) in product.hit.variants.iter_mut().enumerate() {
            if variant.gtin.is_some() {
                variant.gtin = Some(format!(
                    "{:013}",
                    2_000_000_000_000u64 + n as u64 * 64 + size as u64
                ));
            }
        }
        product
    }

    fn next_new(&mut self) -> LiveProduct {
        let product = self.new_product(self.next);
        self.next += 1;
        product
    }
}

/// Distinct queries from the catalogue's titles: word subsets, prefixes, one typo, codes.
fn distinct_queries(conn: &Connection, count: usize, seed: u64) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let products: i64 = conn
        .query_row("SELECT max(pk) FROM products", [], |row| row.get(0))
        .expect("count");
    let mut statement = conn
        .prepare_cached("SELECT title, sku FROM products WHERE pk = ?1")
        .expect("prepare");
    let mut known = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let pk = rng.random_range(1..=products);
        let Ok((title, sku)) = statement.query_row([pk], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
        }) else {
            continue;
        };
        let title_words = words(&title);
        if title_words.is_empty() {
            continue;
        }
        let query = match rng.random_range(0..5) {
            0 => {
                let take = rng.random_range(1..=title_words.len().min(4));
                let start = rng.random_range(0..=title_words.len() - take);
                title_words[start..start + take].join(" ")
            }
            1 => {
                let take = rng.random_range(1..=title_words.len());
                let mut text = title_words[..take].join(" ");
                let cut = rng.random_range(1..=text.len().min(3));
                text.truncate(text.len() - cut + 1);
                text
            }
            2 => {
                let Some(word) = title_words
                    .iter()
                    .filter(|w| w.len() >= 5)
                    .collect::<Vec<_>>()
                    .choose(&mut rng)
                    .map(|w| (*w).clone())
                else {
                    continue;
                };
                let mut bytes = word.into_bytes();
                let at = rng.random_range(1..bytes.len());
                bytes.swap(at - 1, at);
                let other = title_words.choose(&mut rng).cloned().unwrap_or_default();
                format!("{other} {}", String::from_utf8_lossy(&bytes))
            }
            3 => sku.replace('-', ""),
            _ => title.clone(),
        };
        if known.insert(query.clone()) {
            out.push(query);
        }
    }
    out
}

fn search(live: &LiveIndex, text: &str, limit: usize) -> Vec<i64> {
    live.search(&SearchRequest {
        text,
        limit,
        ..SearchRequest::default()
    })
    .expect("search")
    .product_pks
}

fn print_latencies(name: &str, sorted: &[Duration]) {
    println!(
        "  {name}: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms ({} samples)",
        ms(percentile(sorted, 0.5)),
        ms(percentile(sorted, 0.99)),
        ms(sorted[sorted.len() - 1]),
        sorted.len()
    );
}

fn verdict(failures: &mut usize, pass: bool, line: &str) {
    println!("{} {line}", if pass { "PASS" } else { "FAIL" });
    if !pass {
        *failures += 1;
    }
}

fn open(catalogue: &Path, config: LiveConfig) -> LiveIndex {
    let conn = Connection::open(catalogue).expect("catalogue");
    LiveIndex::open(catalogue, &conn, config).expect("live index")
}

/// The prefix of the line `--open-only` prints.
const OPENED: &str = "opened in";

/// A second start: this bench run again as a new process with `--open-only`, which opens the
/// live index the writes left. Its open time in seconds and its RSS after it.
fn second_start(catalogue: &Path) -> (f64, f64) {
    let exe = std::env::current_exe().expect("this bench");
    let output = std::process::Command::new(exe)
        .arg("--open-only")
        .arg(catalogue)
        .output()
        .expect("second start");
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix(OPENED))
        .unwrap_or_else(|| panic!("second start printed no time: {text}"));
    let mut numbers = line
        .split_whitespace()
        .filter_map(|w| w.parse::<f64>().ok());
    let seconds = numbers.next().expect("seconds");
    let rss = numbers.next().expect("rss");
    (seconds, rss)
}

fn main() {
    common::print_build();
    let options = options();
    let catalogue = &options.catalogue;
    if options.open_only {
        let started = Instant::now();
        let live = open(
            catalogue,
            LiveConfig {
                background_merges: false,
                ..LiveConfig::default()
            },
        );
        let seconds = started.elapsed().as_secs_f64();
        println!("{:?}", live.stats());
        println!(
            "{OPENED} {seconds:.3} s, RSS {:.0} MB",
            proc_status_mb("VmRSS")
        );
        return;
    }
    let mut failures = 0;
    let folder = LiveIndex::folder_for(catalogue);
    let _ = std::fs::remove_dir_all(&folder);
    let started = Instant::now();
    let live = open(catalogue, LiveConfig::default());
    println!(
        "live index over {} ({} products) open in {:.2} s, RSS {:.0} MB",
        catalogue.display(),
        live.stats().base_products,
        started.elapsed().as_secs_f64(),
        proc_status_mb("VmRSS")
    );
    let mut writes = Writes::new(catalogue);

    // 1. Time to search.
    let mut visible = Vec::with_capacity(options.visible);
    let mut baseline = Vec::with_capacity(options.visible);
    let mut missed = 0;
    let mut written_before: Option<(i64, String)> = None;
    for _ in 0..options.visible {
        let product = writes.next_new();
        let typo = typo_of(&own_word(writes.next - 1));
        if let Some((pk, earlier)) = &written_before {
            let one = Instant::now();
            let found = search(&live, earlier, FOUND_WITHIN);
            baseline.push(one.elapsed());
            assert!(found.contains(pk), "an earlier product is lost");
        }
        let one = Instant::now();
        live.upsert(&product).expect("write");
        let mut found = search(&live, &typo, FOUND_WITHIN).contains(&product.pk);
        while !found && one.elapsed() < Duration::from_secs(1) {
            found = search(&live, &typo, FOUND_WITHIN).contains(&product.pk);
        }
        visible.push(one.elapsed());
        missed += usize::from(!found);
        written_before = Some((product.pk, typo));
    }
    visible.sort_unstable();
    baseline.sort_unstable();
    println!("time to search ({} single-product writes):", visible.len());
    print_latencies("write until found by a typo query", &visible);
    print_latencies("baseline: the same typo search, no write", &baseline);
    let p99 = ms(percentile(&visible, 0.99));
    verdict(
        &mut failures,
        p99 <= 100.0 && missed == 0,
        &format!("time to search p99 {p99:.1} ms <= 100 ms, {missed} not found"),
    );

    // 2. Search while writing.
    let conn = Connection::open(catalogue).expect("catalogue");
    let per_leg = (options.seconds * 30_000.0) as usize;
    let queries = distinct_queries(&conn, per_leg * 4 + 2_000, 62);
    let (leg_queries, check_queries) = queries.split_at(per_leg * 4);
    let mut rates = [0.0f64; 2];
    let mut latencies: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    let mut write_times = Vec::new();
    let mut write_rates = Vec::new();
    for (round, slice) in leg_queries.chunks(per_leg).enumerate() {
        let with_writes = round % 2 == 1;
        // The products to write, made before the leg (reading them from the catalogue is
        // not the index's work).
        let first = writes.next;
        let products: Vec<LiveProduct> = if with_writes {
            let count = (options.seconds * WRITES_PER_SECOND as f64 * 1.5) as usize + 10;
            (0..count).map(|_| writes.next_new()).collect()
        } else {
            Vec::new()
        };
        let (rate, times, wrote) = load(
            &live,
            slice,
            options.seconds,
            with_writes.then_some(products.as_slice()),
        );
        rates[usize::from(with_writes)] += rate / 2.0;
        latencies[usize::from(with_writes)].extend(times);
        // The products made and not written are made again later (leg 4 rebuilds from
        // every product numbered below `writes.next`).
        writes.next = first + wrote.products;
        if with_writes {
            write_rates.push(wrote.products as f64 / options.seconds);
        }
        write_times.extend(wrote.batch_times);
    }
    println!(
        "search while writing ({CLIENTS} clients, {} search workers, distinct queries, {WRITES_PER_SECOND} products written a second in batches of {WRITE_BATCH}):",
        workers()
    );
    for (name, (rate, times)) in ["without writes (baseline)", "with writes"]
        .iter()
        .zip(rates.iter().zip(&mut latencies))
    {
        times.sort_unstable();
        println!("  {name}: {rate:.0} searches/s");
        print_latencies(name, times);
    }
    write_times.sort_unstable();
    print_latencies(
        &format!("each write of {WRITE_BATCH} products (the writer's thread)"),
        &write_times,
    );
    // The writes must have kept their pace: a writer held up would leave the searches an
    // easier run.
    let slowest = write_rates.iter().copied().fold(f64::INFINITY, f64::min);
    println!("  products written a second, per leg with writes: {write_rates:.0?}");
    let p99 = ms(percentile(&latencies[1], 0.99));
    let ratio = rates[1] / rates[0];
    verdict(
        &mut failures,
        p99 <= 5.0 && ratio >= 0.9 && slowest >= 0.95 * WRITES_PER_SECOND as f64,
        &format!(
            "search while writing p99 {p99:.2} ms <= 5 ms, throughput {ratio:.2}x >= 0.9x, \
             writes kept at {slowest:.0}/s >= 95 % of {WRITES_PER_SECOND}/s"
        ),
    );

    if options.searches_only {
        // The cost of the live part: the same queries, one thread, over the base alone and
        // over base and segment, in alternating chunks.
        let base = SearchIndex::open(catalogue, &conn).expect("index").0;
        let mut times = [Duration::ZERO; 2];
        let mut stage_nanos = [[0u64; 11]; 2];
        solescope::search::stages::record(true);
        for chunk in check_queries.chunks(100) {
            for (at, time) in times.iter_mut().enumerate() {
                let started = Instant::now();
                for text in chunk {
                    let request = SearchRequest {
                        text,
                        limit: PAGE,
                        ..SearchRequest::default()
                    };
                    if at == 0 {
                        std::hint::black_box(base.search(&request).expect("search"));
                    } else {
                        std::hint::black_box(live.search(&request).expect("search"));
                    }
                    let profile = solescope::search::stages::take();
                    for (sum, nanos) in stage_nanos[at].iter_mut().zip(profile.nanos) {
                        *sum += nanos;
                    }
                }
                *time += started.elapsed();
            }
        }
        let per = |time: Duration| ms(time) / check_queries.len() as f64;
        println!(
            "one thread, {} queries: base alone {:.3} ms a search, base and segment ({} live, {} replaced) {:.3} ms",
            check_queries.len(),
            per(times[0]),
            live.stats().live_products,
            live.stats().replaced,
            per(times[1])
        );
        for (stage, at) in solescope::search::stages::Stage::ALL.iter().zip(0..) {
            println!(
                "  {:>12}: base {:.3} ms, live {:.3} ms a search",
                stage.name(),
                stage_nanos[0][at] as f64 / 1e6 / check_queries.len() as f64,
                stage_nanos[1][at] as f64 / 1e6 / check_queries.len() as f64
            );
        }
        std::process::exit(i32::from(failures > 0));
    }

    // Leg 2's million queries are the bench's, not the index's: not kept through leg 3's
    // memory figure.
    let check_queries = check_queries.to_vec();
    drop(queries);
    drop(latencies);
    drop(write_times);
    println!("RSS before the writes: {:.0} MB", proc_status_mb("VmRSS"));
    // 3. Many writes, memory, second start.
    let reference = catalogue.with_extension("reference.sqlite");
    let first_new = writes.next;
    let started = Instant::now();
    let mut batch = Vec::with_capacity(100);
    for change in changes(&mut writes, options.writes) {
        match change {
            Change::Upsert(product) => batch.push(*product),
            Change::Delete(pk) => {
                live.upsert_many(&batch).expect("writes");
                batch.clear();
                live.delete(pk).expect("delete");
            }
        }
        if batch.len() == 100 {
            live.upsert_many(&batch).expect("writes");
            batch.clear();
        }
    }
    live.upsert_many(&batch).expect("writes");
    let written_in = started.elapsed();
    let rss_written = proc_status_mb("VmRSS");
    while live.merge_due() {
        std::thread::sleep(Duration::from_millis(100));
    }
    let stats = live.stats();
    println!(
        "{} writes in {:.1} s ({:.0}/s, batches of 100; RSS then {rss_written:.0} MB), merges since open: {} (the last done {:.1} s after), {stats:?}",
        options.writes,
        written_in.as_secs_f64(),
        options.writes as f64 / written_in.as_secs_f64(),
        stats.generation,
        started.elapsed().saturating_sub(written_in).as_secs_f64()
    );
    // As a service would be a moment later: the allocator returns what the merges freed on
    // its own schedule (its decay, module-level note in `main.rs`).
    std::thread::sleep(SETTLE);
    let rss = proc_status_mb("VmRSS");
    verdict(
        &mut failures,
        rss <= 550.0,
        &format!(
            "RSS after the writes ({} s after the last merge) {rss:.0} MB <= 550 MB (peak {:.0} MB)",
            SETTLE.as_secs(),
            proc_status_mb("VmHWM")
        ),
    );
    drop(live);
    println!(
        "  RSS with the live index dropped: {:.0} MB",
        proc_status_mb("VmRSS")
    );
    let started = Instant::now();
    let read_back = SearchIndex::open(catalogue, &conn).expect("index").0;
    println!(
        "  baseline: the catalogue's index alone read back in {:.2} s",
        started.elapsed().as_secs_f64()
    );
    drop(read_back);
    let (second, child_rss) = second_start(catalogue);
    println!("  second start (a new process): {second:.2} s, its RSS {child_rss:.0} MB");
    verdict(
        &mut failures,
        second <= 1.0,
        &format!("second start {second:.2} s <= 1 s (base and log read back)"),
    );
    if options.no_rebuild {
        let _ = std::fs::remove_dir_all(&folder);
        std::process::exit(i32::from(failures > 0));
    }
    let live = open(catalogue, LiveConfig::default());

    // 4. The same products rebuilt.
    let started = Instant::now();
    let _ = std::fs::remove_file(&reference);
    let copy = products_copy(catalogue, &reference);
    copy.execute_batch("PRAGMA synchronous = OFF; BEGIN")
        .expect("begin");
    // Every new product written in legs 1-3, then the changes of leg 3 to the base's.
    for n in 0..writes.next {
        write_to_catalogue(&copy, &writes.new_product(n)).expect("reference write");
    }
    // The changes again (the same seed over the same catalogue), not kept through leg 3: they
    // would count in its memory.
    let mut again = Writes::new(catalogue);
    again.next = first_new;
    for change in changes(&mut again, options.writes) {
        match change {
            Change::Upsert(product) => {
                write_to_catalogue(&copy, &product).expect("reference write");
            }
            Change::Delete(pk) => {
                copy.execute("DELETE FROM variants WHERE product_pk = ?1", [pk])
                    .expect("delete");
                copy.execute("DELETE FROM products WHERE pk = ?1", [pk])
                    .expect("delete");
            }
        }
    }
    copy.execute_batch("COMMIT").expect("commit");
    let rebuilt = SearchIndex::build(&copy).expect("rebuild");
    println!(
        "rebuild over the same {} products: {:.1} s",
        rebuilt.len(),
        started.elapsed().as_secs_f64()
    );
    let (mut ours, mut theirs) = (0u64, 0u64);
    let mut differing = 0;
    // Pages with hits, first and second, in the live index's answers.
    let mut with_hits = [0usize; 2];
    for text in &check_queries {
        for (page, offset) in [0, PAGE].into_iter().enumerate() {
            let request = SearchRequest {
                text,
                offset,
                limit: PAGE,
                ..SearchRequest::default()
            };
            let got = live.search(&request).expect("search").product_pks;
            let expected = rebuilt.search(&request).expect("search").product_pks;
            with_hits[page] += usize::from(!got.is_empty());
            ours = checksum(ours, &got);
            theirs = checksum(theirs, &expected);
            differing += usize::from(got != expected);
        }
    }
    println!("  pages checksum: live {ours:016x}, rebuilt {theirs:016x}");
    println!(
        "  pages with hits: {} of {} first pages, {} second pages",
        with_hits[0],
        check_queries.len(),
        with_hits[1]
    );
    verdict(
        &mut failures,
        with_hits[0] * 100 >= check_queries.len() * 95,
        &format!(
            "{} of {} first pages have hits (at least 95 %)",
            with_hits[0],
            check_queries.len()
        ),
    );
    verdict(
        &mut failures,
        ours == theirs && differing == 0,
        &format!(
            "{} pages equal a full rebuild's ({differing} differ)",
            check_queries.len() * 2
        ),
    );
    drop(live);
    let _ = std::fs::remove_file(&reference);
    let _ = std::fs::remove_dir_all(&folder);
    if failures > 0 {
        std::process::exit(1);
    }
}

/// A new catalogue at `path` with the products and sizes of `catalogue` (their tables and
/// indexes as there, nothing else): what the index reads, without the weeks of sales.
fn products_copy(catalogue: &Path, path: &Path) -> Connection {
    let copy = Connection::open(path).expect("reference");
    copy.execute(
        "ATTACH DATABASE ?1 AS source",
        [catalogue.to_str().expect("path")],
    )
    .expect("attach");
    let mut statement = copy
        .prepare(
            "SELECT sql FROM source.sqlite_master WHERE tbl_name IN ('products', 'variants')
               AND sql IS NOT NULL ORDER BY type = 'index', name",
        )
        .expect("schema");
    let schema: Vec<String> = statement
        .query_map([], |row| row.get(0))
        .expect("schema")
        .collect::<Result<_, _>>()
        .expect("schema");
    drop(statement);
    copy.execute_batch("PRAGMA synchronous = OFF; BEGIN")
        .expect("begin");
    for sql in schema {
        copy.execute_batch(&sql).expect("schema");
    }
    copy.execute_batch(
        "INSERT INTO products SELECT * FROM source.products;
         INSERT INTO variants SELECT * FROM source.variants;
         COMMIT; DETACH DATABASE source;",
    )
    .expect("copy");
    copy
}

enum Change {
    Upsert(Box<LiveProduct>),
    Delete(i64),
}

/// Leg 3's `count` changes, from `writes`' next new product on: 70 % new products, 15 % a
/// title changed, 5 % a code changed, 5 % deletes, 5 % a price changed. The same each time
/// from the same `writes.next`.
fn changes(writes: &mut Writes, count: usize) -> impl Iterator<Item = Change> + '_ {
    let mut rng = ChaCha8Rng::seed_from_u64(62);
    (0..count).map(move |n| {
        let roll = rng.random_range(0..100);
        if roll < 70 {
            return Change::Upsert(Box::new(writes.next_new()));
        }
        let pk = rng.random_range(1..=writes.products);
        match LiveProduct::read(&writes.conn, pk).expect("read") {
            None => Change::Upsert(Box::new(writes.next_new())),
            Some(mut product) => match roll {
                70..=84 => {
                    product.title = format!("{} {}", own_word(1_000_000 + n), product.title);
                    Change::Upsert(Box::new(product))
                }
                85..=89 => {
                    product.sku = format!("CH{n:07}-1");
                    product.sku_norm = solescope::catalogue::generate::normalize_sku(&product.sku);
                    Change::Upsert(Box::new(product))
                }
                90..=94 => Change::Delete(pk),
                _ => {
                    product.hit.usd.min_cents += 1 + n as i64 % 100;
                    Change::Upsert(Box::new(product))
                }
            },
        }
    })
}

fn checksum(seed: u64, pks: &[i64]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    seed.hash(&mut hasher);
    pks.hash(&mut hasher);
    hasher.finish()
}

/// What leg 2's writer did: each batch's time, and the products written.
#[derive(Default)]
struct Writer {
    batch_times: Vec<Duration>,
    products: usize,
}

/// Search workers: one a core, as the service's async workers, which rank a search inline.
fn workers() -> usize {
    std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
}

/// `CLIENTS` clients asking `queries` for `seconds` (each query once, each client waiting for its
/// answer), served by [`workers`] search threads, with `written` written at
/// `WRITES_PER_SECOND` meanwhile when given: searches per second, every search's time from
/// request to answer, every batch's write time and the products written.
fn load(
    live: &LiveIndex,
    queries: &[String],
    seconds: f64,
    written: Option<&[LiveProduct]>,
) -> (f64, Vec<Duration>, Writer) {
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let (requests, asked) = mpsc::channel::<(usize, mpsc::SyncSender<()>)>();
    let asked = Mutex::new(asked);
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(seconds);
    std::thread::scope(|scope| {
        let writer = written.map(|products| {
            let stop = &stop;
            scope.spawn(move || {
                let period = Duration::from_secs(1) * WRITE_BATCH as u32 / WRITES_PER_SECOND as u32;
                let mut due = Instant::now();
                let mut wrote = Writer::default();
                for batch in products.chunks(WRITE_BATCH) {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let one = Instant::now();
                    live.upsert_many(batch).expect("write");
                    wrote.batch_times.push(one.elapsed());
                    wrote.products += batch.len();
                    due += period;
                    if let Some(wait) = due.checked_duration_since(Instant::now()) {
                        std::thread::sleep(wait);
                    }
                }
                wrote
            })
        });
        for _ in 0..workers() {
            let asked = &asked;
            scope.spawn(move || {
                loop {
                    let job = asked.lock().expect("queue").recv();
                    let Ok((at, answer)) = job else {
                        break;
                    };
                    std::hint::black_box(search(live, &queries[at], PAGE));
                    let _ = answer.send(());
                }
            });
        }
        let clients: Vec<_> = (0..CLIENTS)
            .map(|_| {
                let (next, stop, requests) = (&next, &stop, requests.clone());
                scope.spawn(move || {
                    let (answer, answered) = mpsc::sync_channel(1);
                    let mut times = Vec::new();
                    while Instant::now() < deadline {
                        let at = next.fetch_add(1, Ordering::Relaxed) as usize;
                        if at >= queries.len() {
                            break;
                        }
                        let one = Instant::now();
                        requests.send((at, answer.clone())).expect("worker");
                        answered.recv().expect("answer");
                        times.push(one.elapsed());
                    }
                    stop.store(true, Ordering::Relaxed);
                    times
                })
            })
            .collect();
        drop(requests);
        let times: Vec<Duration> = clients
            .into_iter()
            .flat_map(|handle| handle.join().expect("client"))
            .collect();
        stop.store(true, Ordering::Relaxed);
        let elapsed = started.elapsed().as_secs_f64().max(1e-9);
        let wrote = writer.map_or_else(Writer::default, |writer| writer.join().expect("writer"));
        (times.len() as f64 / elapsed, times, wrote)
    })
}
