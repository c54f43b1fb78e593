//! The mock KicksDB of the tests as a process, for trying the live source by hand or taking the
//! window's screenshot without the internet: prints its base URL, then serves until killed.
//!
//! `cargo run --example mock_kicksdb -- --port 8790 --key KICKS-MOCK-TEST-0000-000000000000`

#[path = "../tests/common/mock_kicksdb.rs"]
mod mock_kicksdb;

use chrono::NaiveDate;
use clap::Parser;
use mock_kicksdb::{MockConfig, MockKicksdb, TEST_KEY};

/// A mock KicksDB v3 on 127.0.0.1.
#[derive(Parser)]
struct Args {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// The key it accepts as `Authorization: Bearer <key>` (a test key, not a secret).
    #[arg(long, default_value = TEST_KEY)]
    key: String,
    /// Last day of the daily sales history (default: today, UTC).
    #[arg(long)]
    today: Option<NaiveDate>,
    /// Answer 429 past this many real-time calls a minute, as KicksDB does at 60.
    #[arg(long)]
    realtime_limit: Option<usize>,
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let config = MockConfig {
        key: args.key,
        port: args.port,
        today: args
            .today
            .unwrap_or_else(|| chrono::Utc::now().date_naive()),
        realtime_limit_per_minute: args.realtime_limit,
        ..MockConfig::default()
    };
    let mock = MockKicksdb::try_start(config)?;
    println!("{}", mock.base_url());
    loop {
        std::thread::park();
    }
}
