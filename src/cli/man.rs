//! `solescope man --out DIR` (hidden): the manual pages, generated from the command line's own
//! definition with `clap_mangen`, so that a page can never name an option or a subcommand the
//! binary does not have. One page per command, as git does: `solescope.1`, `solescope-serve.1`,
//! `solescope-catalogue-generate.1`, ...; the first adds the environment and the files.
//!
//! The .deb's build writes them from the binary it packages (`packaging/linux/build-deb.sh`);
//! `tests/man.rs` checks that they name the same subcommands as `--help`.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::Args;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, italic, roman};
use solescope::app::monitor::lock::LOCK_FILE;
use solescope::catalogue::demo::DEMO_FILE_NAME;
use solescope::service::start::STORES_FILE;
use solescope::userdb::UserDb;

use super::{KICKSDB_KEY_ENV, KICKSDB_MIRROR_FILE, KICKSDB_URL_ENV};

/// `solescope man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The folder to write the pages into (created when missing; pages there are replaced).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// Writes every page into `args.out` and prints each file's path.
pub fn run_man(args: &ManArgs, cli: clap::Command) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    for path in write_pages(cli, &args.out)? {
        println!("{}", path.display());
    }
    Ok(())
}

/// The pages of `cli` and of each of its visible subcommands, at every depth, written into
/// `dir`; the paths written, the root's first.
fn write_pages(cli: clap::Command, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    // No `help` subcommand in the pages: `--help` is an option of every page.
    let mut cli = cli.disable_help_subcommand(true);
    // Builds the display names (`solescope-catalogue-generate`) the pages and their cross
    // references are named by.
    cli.build();
    let mut written = Vec::new();
    let mut root = Vec::new();
    // The root's description, for the page only: `--help` keeps its one line.
    let man = Man::new(cli.clone().long_about(ROOT_DESCRIPTION));
    man.render(&mut root)?;
    extra_sections().to_writer(&mut root)?;
    written.push(write_page(dir, &man.get_filename(), &root)?);
    let mut pending: Vec<clap::Command> = visible_subcommands(&cli);
    while let Some(command) = pending.pop() {
        pending.extend(visible_subcommands(&command));
        let man = Man::new(command);
        let mut page = Vec::new();
        man.render(&mut page)?;
        written.push(write_page(dir, &man.get_filename(), &page)?);
    }
    Ok(written)
}

/// What `solescope` is, for the DESCRIPTION of `solescope.1`.
const ROOT_DESCRIPTION: &str =
    "Without a subcommand, solescope opens the dashboard window: search \
sneakers as you type, open a product to see every size with its prices, follow its weekly orders, \
compare marketplaces, set price alerts and track the pairs you hold. On first start it builds a \
demo catalogue of generated products in the data directory and serves it through the built-in \
Sneaker Market Data Service on a loopback port; Settings switch the window to KicksDB with your \
own key, add retail stores, or point it at a remote Solescope server.

Each subcommand has a page of its own (solescope-serve(1), ...) and prints its options with \
--help.";

fn visible_subcommands(command: &clap::Command) -> Vec<clap::Command> {
    command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set())
        .cloned()
        .collect()
}

fn write_page(dir: &Path, name: &str, page: &[u8]) -> anyhow::Result<PathBuf> {
    let path = dir.join(name);
    solescope::durable::write_bytes(&path, page)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

/// ENVIRONMENT, FILES and SEE ALSO of `solescope.1`: what the command line's definition does
/// not hold. The file names come from the constants the code opens them by.
fn extra_sections() -> Roff {
    let data = "$XDG_DATA_HOME/solescope";
    let file = |name: &str| format!("{data}/{name}");
    let mut roff = Roff::default();
    roff.control("SH", ["ENVIRONMENT"]);
    for (name, what) in [
        (
            KICKSDB_KEY_ENV,
            "The KicksDB key of --source kicksdb (serve, monitor, portfolio value). Without \
             it, monitor and portfolio value use the key the window keeps in the desktop \
             keyring. Never an argument: arguments are visible to every user of the machine.",
        ),
        (
            KICKSDB_URL_ENV,
            "KicksDB's address for the window, monitor and portfolio value (a mock, a proxy); \
             serve takes --kicksdb-url.",
        ),
        (
            "SOLESCOPE_LOG",
            "A tracing filter for the log on standard error, such as debug or \
             info,solescope::service=debug.",
        ),
        (
            "XDG_DATA_HOME",
            "The data directory is $XDG_DATA_HOME/solescope (default ~/.local/share/solescope).",
        ),
    ] {
        roff.control("TP", []);
        roff.text([bold(name)]);
        roff.text([roman(what)]);
    }
    roff.control("SH", ["FILES"]);
    let files = [
        (
            file(DEMO_FILE_NAME),
            "The demo catalogue, built on first start and rebuilt when damaged (the damaged \
             file is moved aside) or made by another version.",
        ),
        (
            file(UserDb::FILE_NAME),
            "The user's own data: watchlist, portfolio, alerts and their price history, \
             retail stores, the KicksDB budget's settings. A copy <file>.before-v<N> is kept \
             before each schema migration.",
        ),
        (
            file(STORES_FILE),
            "What the reading of the retail stores' catalogues found; it can always be read \
             again.",
        ),
        (
            file(KICKSDB_MIRROR_FILE),
            "What KicksDB answered, kept for when it cannot be reached; <mirror>.spend beside \
             it counts this month's KicksDB calls.",
        ),
        (
            file(LOCK_FILE),
            "Held by the monitor that checks the alerts (window or solescope monitor).",
        ),
        (
            file("app.ron"),
            "The window's state: size, layout, theme, last search, open product.",
        ),
        (
            "<catalogue>.search-index, <catalogue>.search-hits, <catalogue>.search-live/"
                .to_owned(),
            "The search index beside any catalogue; rebuilt when missing, so always safe to \
             delete.",
        ),
    ];
    for (path, what) in files {
        roff.control("TP", []);
        roff.text([italic(path)]);
        roff.text([roman(what)]);
    }
    roff.control("PP", []);
    roff.text([roman(
        "API keys are kept in the desktop keyring (Secret Service), never in a file.",
    )]);
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman(
        "The user guide and the other pages in /usr/share/doc/solescope/ (README.md, docs/).",
    )]);
    roff
}
